import { decodeHTMLStrict } from 'entities';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import * as z from 'zod';
import { errors } from '../errors.ts';
import { parseCalendarDate } from '../util/dates.ts';
import { CATEGORIES, type FeedCategory } from './categories.ts';
import { decodeXmlBytes } from './decode-xml-bytes.ts';
import { parseEuroCents } from './parse-euro.ts';
import type { SourceList, SourceProduct } from './source-types.ts';
import { parseTariffCode } from './tariff-code.ts';

export type { SourceList, SourceProduct } from './source-types.ts';

const MAX_PROBLEMS = 20;
const META = XMLParser.getMetaDataSymbol() as symbol;

/**
 * The parser for one document. Entity declarations are refused before parsing (below), so the
 * only references are the predefined, numeric and HTML ones, each at least 4 characters long and
 * expanding to a character or two: bounds that follow the document's size keep the protection
 * against expansion and still read a real list with thousands of apostrophes (`&apos;`).
 */
function parserFor(xml: string): XMLParser {
  return new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '',
    parseTagValue: false,
    parseAttributeValue: false,
    trimValues: true,
    // Numeric references (&#232;) are expanded under this option; named ones are made numeric first.
    htmlEntities: true,
    captureMetaData: true,
    // isArray reads the tag's name only: no path string built for every tag (a tenth of the parse).
    jPath: false,
    isArray: (name) => name === 'categoria' || name === 'prodotto',
    processEntities: {
      enabled: true,
      maxEntityCount: 50,
      maxEntitySize: 1000,
      maxExpansionDepth: 2,
      maxTotalExpansions: Math.max(1000, Math.ceil(xml.length / 4)),
      maxExpandedLength: Math.max(100_000, xml.length * 2),
    },
  });
}

/** Text of a leaf element with runs of whitespace folded; undefined when absent or empty. */
const text = z.preprocess((value) => {
  const raw = typeof value === 'object' && value !== null && '#text' in value ? (value as Record<string, unknown>)['#text'] : value;
  if (typeof raw !== 'string' && typeof raw !== 'number') return undefined;
  const folded = String(raw).replace(/\s+/g, ' ').trim();
  return folded === '' ? undefined : folded;
}, z.string().optional());

/** An element; an empty one (`<categoria codice="x"/>` with no children) reads as no fields. */
const node = <Shape extends z.ZodRawShape>(shape: Shape) => z.preprocess((value) => (value === '' ? {} : value), z.object(shape).loose());

const productNode = node({ codice: text, denominazione: text, confezione: text, prezzoKgConvenzionale: text, prezzoConfezione: text });
const categoryNode = node({ codice: text, inVigoreDal: text, prodotto: z.array(z.unknown()).optional() });
const rootNode = node({ ente: text, inVigoreDal: text, categoria: z.array(z.unknown()).optional() });

/**
 * Parses one document of the authority's feed (docs/source-format.md) into category lists.
 * Collects every problem of the document before failing, so one run shows the operator all of them.
 *
 * @example parseTariffXml(readFileSync('sigarette.xml'), 'sigarette.xml')
 */
export function parseTariffXml(bytes: Uint8Array, source: string): SourceList[] {
  const raw = decodeXmlBytes(bytes, source);
  if (/<!ENTITY/i.test(raw)) {
    throw errors.sourceInvalid(
      `${source} line ${lineIndex(raw)(raw.search(/<!ENTITY/i))}`,
      'entity declarations (<!ENTITY>) are not accepted in a tariff feed',
    );
  }
  // Same lines as the raw text: only references within a line are rewritten.
  const xml = namedReferencesAsNumeric(raw, source, lineIndex(raw));
  const lineOf = lineIndex(xml);
  const validation = XMLValidator.validate(xml);
  if (validation !== true) {
    throw errors.sourceMalformed(`${source} line ${validation.err.line}, column ${validation.err.col}`, validation.err.msg);
  }

  let tree: Record<string, unknown>;
  try {
    tree = parserFor(xml).parse(xml) as Record<string, unknown>;
  } catch (error) {
    throw errors.sourceMalformed(source, (error as Error).message);
  }

  const problems: string[] = [];
  const report = (where: string, detail: string) => {
    if (problems.length < MAX_PROBLEMS) problems.push(`${where}: ${detail}`);
  };
  const whereOf = (value: unknown) => {
    const start = (value as Record<symbol, { startIndex?: number } | undefined>)?.[META]?.startIndex;
    return start === undefined ? source : `${source} line ${lineOf(start)}`;
  };

  if (!('tariffa' in tree)) {
    throw errors.sourceInvalid(
      source,
      `the root element must be <tariffa>, found <${Object.keys(tree).find((k) => !k.startsWith('?')) ?? 'nothing'}>`,
    );
  }
  const root = rootNode.parse(tree.tariffa);
  const rootDate = root.inVigoreDal;
  const lists: SourceList[] = [];

  for (const rawCategory of root.categoria ?? []) {
    const categoryWhere = whereOf(rawCategory);
    const category = categoryNode.safeParse(rawCategory);
    if (!category.success) {
      report(categoryWhere, '<categoria> is not an element with attributes and <prodotto> children');
      continue;
    }
    const code = category.data.codice;
    if (!code || !(code in CATEGORIES)) {
      report(categoryWhere, `<categoria codice="${code ?? ''}"> is not a known category (${Object.keys(CATEGORIES).join(', ')})`);
      continue;
    }
    const feedCategory = code as FeedCategory;
    const dateText = category.data.inVigoreDal ?? rootDate;
    const effectiveFrom = dateText === undefined ? null : parseCalendarDate(dateText);
    if (dateText === undefined) {
      report(categoryWhere, `categoria ${code} has no effective date (inVigoreDal on <tariffa> or <categoria>)`);
      continue;
    }
    if (effectiveFrom === null) {
      report(categoryWhere, `categoria ${code}: inVigoreDal="${dateText}" is not a date (use 2026-11-15 or 15/11/2026)`);
      continue;
    }

    const products: SourceProduct[] = [];
    (category.data.prodotto ?? []).forEach((rawProduct, index) => {
      const product = readProduct(rawProduct, `${whereOf(rawProduct)} (categoria ${code}, prodotto n. ${index + 1}`, report);
      if (product) products.push(product);
    });
    // The XML format's reference price is <prezzoKgConvenzionale>: per conventional kilogram.
    lists.push({
      source,
      feedCategory,
      category: CATEGORIES[feedCategory],
      effectiveFrom,
      referenceUnit: 'conventional_kg',
      products,
      where: categoryWhere,
    });
  }

  if (problems.length > 0) {
    throw errors.sourceInvalid(
      source,
      `${problems.length >= MAX_PROBLEMS ? `${MAX_PROBLEMS} or more` : problems.length} problem(s):\n  - ${problems.join('\n  - ')}`,
    );
  }
  return lists;
}

function readProduct(raw: unknown, wherePrefix: string, report: (where: string, detail: string) => void): SourceProduct | null {
  const parsed = productNode.safeParse(raw);
  if (!parsed.success) {
    report(`${wherePrefix})`, '<prodotto> must contain elements, not text');
    return null;
  }
  const { codice, denominazione, confezione, prezzoKgConvenzionale, prezzoConfezione } = parsed.data;
  const where = `${wherePrefix}${codice ? `, codice ${codice}` : ''}${denominazione ? ` "${denominazione}"` : ''})`;
  let ok = true;
  const fail = (detail: string) => {
    report(where, detail);
    ok = false;
  };

  const admCode = parseTariffCode(codice);
  if (codice === undefined) fail('<codice> is missing');
  else if (admCode === null) fail(`<codice>${codice}</codice> is not a tariff code (a whole number of 1 to 9 digits)`);
  if (denominazione === undefined) fail('<denominazione> is missing');
  if (confezione === undefined) fail('<confezione> is missing');
  const pricePerKgCents = price(prezzoKgConvenzionale, 'prezzoKgConvenzionale', fail);
  const pricePerPackCents = price(prezzoConfezione, 'prezzoConfezione', fail);

  if (!ok) return null;
  return {
    admCode: admCode!,
    name: denominazione!,
    pack: confezione!,
    referencePriceCents: pricePerKgCents!,
    pricePerPackCents: pricePerPackCents!,
    where,
  };
}

function price(value: string | undefined, element: string, fail: (detail: string) => void): number | null {
  if (value === undefined) {
    fail(`<${element}> is missing`);
    return null;
  }
  const cents = parseEuroCents(value);
  if (cents === null || cents <= 0) {
    fail(`<${element}>${value}</${element}> is not a positive euro amount written the Italian way (e.g. 5,50 or 1.234,00)`);
    return null;
  }
  return cents;
}

const XML_NAMED = new Set(['amp', 'lt', 'gt', 'quot', 'apos']);

/**
 * HTML named references (`&egrave;`, `&Ntilde;`) written as numeric ones (`&#232;`) before
 * parsing, with the full HTML table: the XML parser knows only a few of them and would leave the
 * others in a product's name as text. A name that is no HTML entity is an error, never kept.
 */
function namedReferencesAsNumeric(xml: string, source: string, lineOf: (offset: number) => number): string {
  return xml.replace(/&([A-Za-z][A-Za-z0-9]*);/g, (reference: string, name: string, offset: number) => {
    if (XML_NAMED.has(name)) return reference;
    const decoded = decodeHTMLStrict(reference);
    if (decoded === reference) throw errors.sourceInvalid(`${source} line ${lineOf(offset)}`, `${reference} is not an XML or HTML entity`);
    return [...decoded].map((character) => `&#${character.codePointAt(0)};`).join('');
  });
}

/** Maps a character offset to a 1-based line number. */
function lineIndex(text: string): (offset: number) => number {
  const starts = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return (offset) => {
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if (starts[mid]! <= offset) low = mid;
      else high = mid - 1;
    }
    return low + 1;
  };
}
