import { CATEGORIES, type FeedCategory } from '../categories.ts';
import { categoryNamed, CATEGORY_NAMES } from '../category-names.ts';
import { effectiveDatesIn, listDateIn } from '../italian-dates.ts';
import type { ReferenceUnit } from '../reference-unit.ts';
import type { NoticeChange, SetAsideDocument, SourceList, SourceNotice, SourceProduct } from '../source-types.ts';
import type { ColumnRole } from './header-roles.ts';
import { ProblemLog } from './problems.ts';
import { readTables, thinPages, type DocumentReading, type ReadTable } from './read-tables.ts';
import { readProductRow, type ProductRow } from './read-row-values.ts';
import type { PdfPage } from './text-runs.ts';

/**
 * What a document is, from what it shows: a category's national price list, a Campione d'Italia
 * list (another territory: never part of the national tariff), a price-change notice, or
 * something else (no table of the authority's).
 */
export type DocumentKind = 'list' | 'campione' | 'notice' | 'other';

export interface DocumentInterpretation {
  source: string;
  kind: DocumentKind;
  /** The category of a list (a notice's tables each name their own). */
  feedCategory: FeedCategory | null;
  /** A list's date, or a notice's effective date when the document states one. */
  date: string | null;
  referenceUnit: ReferenceUnit | null;
  reading: DocumentReading;
  problems: ProblemLog;
  lists: SourceList[];
  notices: SourceNotice[];
  setAside: SetAsideDocument[];
}

// "LISTINO CAMPIONE D'ITALIA AGGIORNATO AL 3/04/2026"
const CAMPIONE = /campione\s*d\W{0,2}\s*italia/i;

/** Reads a PDF's pages as the authority's document they are, collecting every problem with its page and row. */
export function interpretDocument(pages: PdfPage[], source: string): DocumentInterpretation {
  return interpretReading(readTables(pages, source), source);
}

/** Reads a document's tables (TableWalker's reading) as the authority's document they are. */
export function interpretReading(reading: DocumentReading, source: string): DocumentInterpretation {
  const result: DocumentInterpretation = {
    source,
    kind: 'other',
    feedCategory: null,
    date: null,
    referenceUnit: null,
    reading,
    problems: reading.problems,
    lists: [],
    notices: [],
    setAside: [],
  };
  const first = reading.tables[0];
  if (!first) {
    result.problems = new ProblemLog();
    return result;
  }
  if (reading.tables.some((table) => table.header.kind !== first.header.kind))
    result.problems.push({ page: null, row: null, detail: 'the document mixes price-list and price-change tables' });
  result.referenceUnit = first.header.referenceUnit;
  if (first.header.kind === 'notice') readNotice(result);
  else readList(result);
  return result;
}

function where(source: string, row: ProductRow): string {
  return `${source} page ${row.page} row ${row.row}${row.what ? ` (${row.what})` : ''}`;
}

function readList(result: DocumentInterpretation): void {
  const { reading, problems, source } = result;
  const prose = reading.prose.map((line) => line.text).join('\n');
  result.kind = CAMPIONE.test(prose) ? 'campione' : 'list';
  result.date = listDate(reading, problems);
  result.feedCategory = tablesCategory(reading.tables, problems);
  const categoryText = reading.tables[0]!.header.categoryText;

  if (result.kind === 'campione') {
    result.setAside.push({
      source,
      kind: 'campione',
      effectiveFrom: result.date,
      detail: `a Campione d'Italia list (${categoryText}${result.date ? `, ${result.date}` : ''}): another territory's prices, left out of the national tariff`,
    });
    return;
  }
  requireColumn(reading.tables, 'code', 'a code column ("Codice")', problems);
  thinPages(reading);
  for (const table of reading.tables)
    if (table.header.referenceUnit !== result.referenceUnit)
      problems.push({
        page: table.page,
        row: null,
        detail: `the reference price is per ${table.header.referenceUnit}, an earlier table's per ${result.referenceUnit}`,
      });
  requireColumn(reading.tables, 'reference', 'a reference price column ("€/kg conv.le", "€/kg", "€/1.000 pz." …)', problems);
  const products: SourceProduct[] = [];
  for (const table of reading.tables)
    for (const row of table.rows) {
      const read = readProductRow(table, row, ['reference', 'packPrice'], problems);
      if (read?.admCode != null && read.cents.reference !== undefined)
        products.push({
          admCode: read.admCode,
          name: read.name,
          pack: read.pack,
          referencePriceCents: read.cents.reference,
          pricePerPackCents: read.cents.packPrice!,
          where: where(source, read),
        });
    }
  if (products.length === 0 && problems.length === 0) problems.push({ page: null, row: null, detail: 'the list has no product row' });
  if (problems.length > 0 || !result.feedCategory || !result.date || !result.referenceUnit) return;
  result.lists.push({
    source,
    feedCategory: result.feedCategory,
    category: CATEGORIES[result.feedCategory],
    effectiveFrom: result.date,
    referenceUnit: result.referenceUnit,
    products,
    where: source,
  });
}

/** The date of the list's title, the same wherever it is repeated. */
function listDate(reading: DocumentReading, problems: ProblemLog): string | null {
  let date: { iso: string; page: number } | null = null;
  for (const line of reading.prose) {
    const found = listDateIn(line.text);
    if (!found) continue;
    if (!found.iso) problems.push({ page: line.page, row: null, detail: `"${found.written}" is not a real date` });
    else if (!date) date = { iso: found.iso, page: line.page };
    else if (date.iso !== found.iso)
      problems.push({ page: line.page, row: null, detail: `the list date ${found.iso} differs from ${date.iso} on page ${date.page}` });
  }
  if (!date) problems.push({ page: null, row: null, detail: 'no title with the list\'s date ("LISTINO AGGIORNATO AL …")' });
  return date?.iso ?? null;
}

/** The one category a list's tables name. */
function tablesCategory(tables: ReadTable[], problems: ProblemLog): FeedCategory | null {
  let category: FeedCategory | null = null;
  for (const table of tables) {
    const named = categoryNamed(table.header.categoryText);
    if (!named)
      problems.push({
        page: table.page,
        row: null,
        detail: `the header's category "${table.header.categoryText}" is not one the builder knows (${CATEGORY_NAMES.join(', ')})`,
      });
    else if (category && named !== category)
      problems.push({
        page: table.page,
        row: null,
        detail: `the header names the category "${table.header.categoryText}", an earlier one ${category}`,
      });
    else category = named;
  }
  return category;
}

function requireColumn(tables: ReadTable[], role: ColumnRole, what: string, problems: ProblemLog): void {
  for (const table of tables)
    if (!table.header.cells.some((cell) => cell.role === role))
      problems.push({ page: table.page, row: null, detail: `the table has no ${what}` });
}

function readNotice(result: DocumentInterpretation): void {
  const { reading, problems, source } = result;
  const dates = effectiveDatesIn(reading.prose.map((line) => line.text).join('\n'));
  result.kind = 'notice';
  if (dates.length > 1)
    problems.push({ page: null, row: null, detail: `more than one effective date (${dates.join(', ')}): one date per notice` });
  result.date = dates.length === 1 ? dates[0]! : null;
  const changes: NoticeChange[] = [];
  for (const table of reading.tables) {
    const feedCategory = categoryNamed(table.header.categoryText);
    if (!feedCategory) {
      problems.push({
        page: table.page,
        row: null,
        detail: `the table's category "${table.header.categoryText}" is not one the builder knows`,
      });
      continue;
    }
    for (const row of table.rows) {
      const read = readProductRow(table, row, ['fromReference', 'toReference', 'packPrice'], problems);
      if (!read) continue;
      changes.push({
        feedCategory,
        category: CATEGORIES[feedCategory],
        admCode: read.admCode,
        name: read.name,
        pack: read.pack,
        referenceUnit: table.header.referenceUnit!,
        fromReferenceCents: read.cents.fromReference!,
        referencePriceCents: read.cents.toReference!,
        pricePerPackCents: read.cents.packPrice!,
        where: where(source, read),
      });
    }
  }
  if (changes.length === 0 && problems.length === 0) problems.push({ page: null, row: null, detail: 'the notice has no price-change row' });
  if (problems.length === 0) result.notices.push({ source, effectiveFrom: result.date, changes, where: source });
}
