import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { feed } from '../../test/helpers/feed.ts';
import { parseTariffXml } from './parse-tariff-xml.ts';

const sample = (name: string) => readFileSync(new URL(`../../fixtures/sample/tariff/${name}`, import.meta.url));
const utf8 = (text: string) => Buffer.from(text, 'utf8');
const product = (fields: string) =>
  `<?xml version="1.0"?>\n<tariffa inVigoreDal="2026-11-01">\n<categoria codice="sigarette">\n<prodotto>${fields}</prodotto>\n</categoria>\n</tariffa>`;
const COMPLETE =
  '<codice>1</codice><denominazione>A</denominazione><confezione>astuccio da 20 pezzi</confezione><prezzoKgConvenzionale>300,00</prezzoKgConvenzionale><prezzoConfezione>6,00</prezzoConfezione>';

function parseError(bytes: Uint8Array, name = 'feed.xml'): { code: string; message: string } {
  try {
    parseTariffXml(bytes, name);
  } catch (error) {
    return error as { code: string; message: string };
  }
  throw new Error('expected the parse to fail');
}

describe('parseTariffXml on the quirks of real feeds', () => {
  const [cigarettes] = parseTariffXml(sample('sigarette-2026-11-01.xml'), 'sigarette.xml');

  it('decodes an ISO-8859-1 prolog with accented names', () => {
    expect(cigarettes!.products.find((p) => p.admCode === 1003)!.name).toBe('CITTÀ DI CASTELLO BLU');
  });

  it('folds stray whitespace inside and around values', () => {
    const item = cigarettes!.products.find((p) => p.admCode === 1003)!;
    expect(item).toMatchObject({ admCode: 1003, name: 'CITTÀ DI CASTELLO BLU', referencePriceCents: 29000 });
  });

  it('expands entity and character references', () => {
    expect(cigarettes!.products.find((p) => p.admCode === 1004)!.name).toBe("FUMO & FIGLI è L'ORIGINALE");
  });

  it('reads Italian dates and amounts with thousands separators', () => {
    expect(cigarettes!.effectiveFrom).toBe('2026-11-01');
    const [cigars] = parseTariffXml(sample('altri-tabacchi-2026-06-01.xml'), 'altri.xml');
    expect(cigars!.products.map((p) => [p.referencePriceCents, p.pricePerPackCents])).toEqual([
      [123400, 850],
      [1250000, 125000],
    ]);
  });

  it('keeps an empty category as a list with no products', () => {
    const lists = parseTariffXml(sample('altri-tabacchi-2026-06-01.xml'), 'altri.xml');
    expect(lists.find((l) => l.feedCategory === 'liquidi_inalazione')).toMatchObject({ products: [], effectiveFrom: '2026-06-01' });
  });

  it('takes a category date over the document date', () => {
    const lists = parseTariffXml(sample('liquidi-2026-06-01.xml'), 'liquidi.xml');
    expect(lists[0]).toMatchObject({ category: 'inhalation_liquids', effectiveFrom: '2026-06-01' });
  });

  it('accepts a UTF-8 byte-order mark', () => {
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), utf8(product(COMPLETE))]);
    expect(parseTariffXml(bytes, 'bom.xml')[0]!.products).toHaveLength(1);
  });

  it('names the line of each product for error messages', () => {
    expect(cigarettes!.products[0]!.where).toMatch(
      /^sigarette\.xml line 5 \(categoria sigarette, prodotto n\. 1, codice 1001 "AURORA ROSSA"\)$/,
    );
  });

  it('defuses entity-expansion attacks before they cost memory or time', () => {
    const lol = `<?xml version="1.0"?><!DOCTYPE t [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]><tariffa>&c;&c;&c;&c;</tariffa>`;
    expect(parseError(utf8(lol))).toMatchObject({ code: 'source_invalid', message: expect.stringContaining('entity declarations') });
  });

  it('reads a real-sized list with thousands of character references (an apostrophe in 1,250 names)', () => {
    const products = Array.from(
      { length: 1250 },
      (_, i) =>
        `<prodotto><codice>${i + 1}</codice><denominazione>L&apos;ORIGINALE N&#176; ${i} &egrave; &amp; C.</denominazione><confezione>da 20 pezzi</confezione><prezzoKgConvenzionale>300,00</prezzoKgConvenzionale><prezzoConfezione>6,00</prezzoConfezione></prodotto>`,
    );
    const xml = `<?xml version="1.0"?><tariffa inVigoreDal="2026-11-01"><categoria codice="sigarette">${products.join('')}</categoria></tariffa>`;
    const [list] = parseTariffXml(utf8(xml), 'feed.xml');
    expect(list!.products).toHaveLength(1250);
    expect(list!.products[1249]!.name).toBe("L'ORIGINALE N° 1249 è & C.");
  });

  it('expands every HTML named entity, and refuses a name that is none', () => {
    const doc = (name: string) =>
      utf8(
        `<?xml version="1.0"?><tariffa inVigoreDal="2026-11-01"><categoria codice="sigarette">\n<prodotto><codice>1</codice><denominazione>${name}</denominazione><confezione>da 20 pezzi</confezione><prezzoKgConvenzionale>300,00</prezzoKgConvenzionale><prezzoConfezione>6,00</prezzoConfezione></prodotto></categoria></tariffa>`,
      );
    expect(parseTariffXml(doc('A&Ntilde;EJO &egrave; &ugrave;&amp;&lt;'), 'f.xml')[0]!.products[0]!.name).toBe('AÑEJO è ù&<');
    expect(parseError(doc('X &notanentity; Y'))).toMatchObject({
      code: 'source_invalid',
      message: expect.stringMatching(/line 2: &notanentity; is not an XML or HTML entity/),
    });
  });
});

describe('parseTariffXml on invalid input', () => {
  it('reports malformed XML with line and column', () => {
    const error = parseError(utf8('<?xml version="1.0"?>\n<tariffa inVigoreDal="2026-11-01">\n<categoria codice="sigarette">\n</tariffa>'));
    expect(error.code).toBe('source_malformed');
    expect(error.message).toMatch(/^feed\.xml line \d+, column \d+: the XML is malformed/);
  });

  it('reports a truncated download as malformed', () => {
    const whole = sample('altri-tabacchi-2026-06-01.xml');
    expect(parseError(whole.subarray(0, Math.floor(whole.length / 2))).code).toBe('source_malformed');
  });

  it('refuses bytes that are not the declared encoding', () => {
    const latin1 = sample('sigarette-2026-11-01.xml').toString('latin1').replace('encoding="ISO-8859-1"', 'encoding="UTF-8"');
    expect(parseError(Buffer.from(latin1, 'latin1'))).toMatchObject({
      code: 'source_malformed',
      message: expect.stringContaining('not valid UTF-8'),
    });
  });

  it('refuses an unknown root element', () => {
    expect(parseError(utf8('<listino/>'))).toMatchObject({ code: 'source_invalid', message: expect.stringContaining('<tariffa>') });
  });

  it.each([
    ['a missing code', COMPLETE.replace('<codice>1</codice>', ''), '<codice> is missing'],
    ['an empty code', COMPLETE.replace('<codice>1</codice>', '<codice> </codice>'), '<codice> is missing'],
    [
      'a code that is not a number',
      COMPLETE.replace('<codice>1</codice>', '<codice>A12</codice>'),
      'is not a tariff code (a whole number of 1 to 9 digits)',
    ],
    ['a missing pack price', COMPLETE.replace('<prezzoConfezione>6,00</prezzoConfezione>', ''), '<prezzoConfezione> is missing'],
    [
      'a missing kilogram price',
      COMPLETE.replace('<prezzoKgConvenzionale>300,00</prezzoKgConvenzionale>', ''),
      '<prezzoKgConvenzionale> is missing',
    ],
    ['a price with a decimal point', COMPLETE.replace('6,00', '6.00'), 'is not a positive euro amount'],
    ['a zero price', COMPLETE.replace('6,00', '0,00'), 'is not a positive euro amount'],
    ['a missing name', COMPLETE.replace('<denominazione>A</denominazione>', ''), '<denominazione> is missing'],
    ['a missing pack', COMPLETE.replace('<confezione>astuccio da 20 pezzi</confezione>', ''), '<confezione> is missing'],
  ])('refuses a product with %s, naming it and its line', (_, fields, detail) => {
    const error = parseError(utf8(product(fields)));
    expect(error.code).toBe('source_invalid');
    expect(error.message).toContain('feed.xml line 4 (categoria sigarette, prodotto n. 1');
    expect(error.message).toContain(detail);
  });

  it('lists every problem of a document at once', () => {
    const xml = feed('2026-11-01', {
      sigarette: [
        ['1', 'A', 'astuccio da 20 pezzi', '300,00', 'x'],
        ['2', 'B', 'astuccio da 20 pezzi', 'y', '6,00'],
      ],
    });
    const error = parseError(utf8(xml));
    expect(error.message).toContain('2 problem(s)');
    expect(error.message).toContain('codice 1 "A"');
    expect(error.message).toContain('codice 2 "B"');
  });

  it.each([
    ['not a date', '<tariffa inVigoreDal="domani"><categoria codice="sigarette"/></tariffa>', 'is not a date'],
    ['an impossible date', '<tariffa inVigoreDal="31/02/2026"><categoria codice="sigarette"/></tariffa>', 'is not a date'],
    ['no date at all', '<tariffa><categoria codice="sigarette"/></tariffa>', 'has no effective date'],
    ['an unknown category', '<tariffa inVigoreDal="2026-11-01"><categoria codice="pipe"/></tariffa>', 'is not a known category'],
  ])('refuses a category with %s', (_, xml, detail) => {
    expect(parseError(utf8(xml))).toMatchObject({ code: 'source_invalid', message: expect.stringContaining(detail) });
  });
});
