import { createHash } from 'node:crypto';
import { errors } from '../../errors.ts';
import { recogniseHeader, type TableHeader } from './header-roles.ts';
import { joinRuns, layoutLines, type Line } from './layout-lines.ts';
import { columnsFromBody, type Column } from './table-columns.ts';
import { groupRows, isRowLine, rowCells, type TableRow } from './table-rows.ts';
import { ProblemLog } from './problems.ts';
import { READER_LIMITS } from './reader-tolerances.ts';
import type { PdfPage } from './text-runs.ts';

/** A row of a table with the page it is on. */
export interface PlacedRow extends TableRow {
  page: number;
}

/** One table of a document: its header, the columns found on each page it spans, and its rows in order. */
export interface ReadTable {
  header: TableHeader;
  /** The page the header is on. */
  page: number;
  columns: { page: number; columns: Column[] }[];
  rows: PlacedRow[];
}

/** A document as the table walker reads it: its tables, the text outside them, and what could not be placed. */
export interface DocumentReading {
  tables: ReadTable[];
  /** Lines outside every table (titles, prose, footnotes), page by page, top to bottom. */
  prose: { page: number; text: string }[];
  problems: ProblemLog;
  pages: number;
  /** Rows read so far, every table's (counted against READER_LIMITS.rowsPerDocument as pages come). */
  rows: number;
}

// Page furniture that may stand under a table without ending it: "Pagina 2 di 11", "2/11", "- 2 -".
const FURNITURE = /^(pag(ina|\.)?\s*\d+(\s*(di|\/)\s*\d+)?|\d+\s*(di|\/)\s*\d+|-?\s*\d+\s*-?)$/i;

/**
 * Walks a PDF's pages for tables, page by page as they are read, the same way for price lists and
 * notices: a recognised header opens a table; its rows run to the next header, to text below them
 * that is not page furniture (a footnote, prose), or over the page's end, in which case the next
 * page's rows continue it whether or not that page repeats the header. Columns are found anew on
 * each page from its rows. A page's runs are dropped once it is walked; more tables than
 * `tablesPerDocument` refuse the document at once (`source_pdf_unreadable`).
 */
export class TableWalker {
  readonly reading: DocumentReading = { tables: [], prose: [], problems: new ProblemLog(), pages: 0, rows: 0 };
  private open: ReadTable | null = null;
  private readonly source: string;
  private readonly tablesPerDocument: number;
  private readonly rowsPerDocument: number;
  /** Each page's rows, by digest: a page whose rows are another's, every cell alike, is a damaged file's. */
  private readonly pageRows = new Map<string, number>();

  constructor(source: string, limits: { tablesPerDocument?: number; rowsPerDocument?: number } = {}) {
    this.source = source;
    this.tablesPerDocument = limits.tablesPerDocument ?? READER_LIMITS.tablesPerDocument;
    this.rowsPerDocument = limits.rowsPerDocument ?? READER_LIMITS.rowsPerDocument;
  }

  /** Refuses a page whose rows are, cell for cell, those of an earlier page: no list prints a page twice. */
  private checkRepeated(page: number, rows: number): void {
    if (rows < REPEAT_MIN_ROWS) return;
    const digest = createHash('sha256');
    for (const table of this.reading.tables)
      for (let i = table.rows.length - 1; i >= 0 && table.rows[i]!.page === page; i--) digest.update(JSON.stringify(table.rows[i]!.cells));
    const key = digest.digest('base64');
    const earlier = this.pageRows.get(key);
    if (earlier !== undefined)
      throw errors.pdfDamaged(
        this.source,
        `page ${page} shows the ${rows} rows of page ${earlier} again, every cell alike: a page's content is another's`,
      );
    this.pageRows.set(key, page);
  }

  add(page: PdfPage): void {
    const { reading } = this;
    reading.pages++;
    const rowsBefore = reading.rows;
    const lines = layoutLines(page.runs);
    const headers = lines.flatMap((line, i) => {
      const header = recogniseHeader(line);
      return header ? [{ i, header }] : [];
    });
    // Segments: [start, end) of lines, each with the table it belongs to (null: outside every table).
    const starts = [0, ...headers.map((h) => h.i)];
    for (let s = 0; s < starts.length; s++) {
      const from = s === 0 ? 0 : starts[s]! + 1;
      const to = s + 1 < starts.length ? starts[s + 1]! : lines.length;
      if (s > 0) {
        if (reading.tables.length >= this.tablesPerDocument)
          throw errors.pdfUnreadable(
            this.source,
            `it holds more than ${this.tablesPerDocument} tables (page ${page.number} alone has ${headers.length} table header${headers.length === 1 ? '' : 's'}): no price list does`,
          );
        this.open = { header: headers[s - 1]!.header, page: page.number, columns: [], rows: [] };
        reading.tables.push(this.open);
      }
      this.open = readSegment(lines.slice(from, to), this.open, page.number, reading);
    }
    this.checkRepeated(page.number, reading.rows - rowsBefore);
    // Refused as soon as it passes the bound: what the command holds of a document grows with its rows.
    if (reading.rows > this.rowsPerDocument)
      throw errors.pdfUnreadable(
        this.source,
        `it holds more than ${this.rowsPerDocument} rows (${reading.rows} by page ${page.number}), ten times the longest price list: no price list does`,
      );
  }
}

/** A page of fewer rows than this is not compared with the others (a notice's one-row tables may well repeat). */
const REPEAT_MIN_ROWS = 5;

/**
 * A page that continues a table over both its ends (neither its first nor its last page) and holds
 * fewer rows than this share of the fewer of its neighbours' is suspect: part of it may be lost.
 */
const THIN_PAGE_SHARE = 0.5;

/**
 * The pages of each table that hold a fraction of their neighbours' rows while the table runs on
 * over them: a problem each (a list prints its pages full, the last one excepted).
 */
export function thinPages(reading: DocumentReading): void {
  for (const table of reading.tables) {
    const counts = new Map<number, number>();
    for (const row of table.rows) counts.set(row.page, (counts.get(row.page) ?? 0) + 1);
    const pages = [...counts.keys()].sort((a, b) => a - b);
    for (let i = 1; i + 1 < pages.length; i++) {
      const [before, here, after] = [counts.get(pages[i - 1]!)!, counts.get(pages[i]!)!, counts.get(pages[i + 1]!)!];
      if (here < THIN_PAGE_SHARE * Math.min(before, after))
        reading.problems.push({
          page: pages[i]!,
          row: null,
          detail: `the page holds ${here} rows where the pages around it hold ${before} and ${after}, and the table runs on over it: part of the page may be missing (a damaged file)`,
        });
    }
  }
}

/** Every page's tables at once (tests; a document's reading walks its pages as they come: TableWalker). */
export function readTables(pages: PdfPage[], source = 'the document'): DocumentReading {
  const walker = new TableWalker(source);
  for (const page of pages) walker.add(page);
  return walker.reading;
}

/** Reads lines that belong to `table` (if any), and returns the table still open after them. */
function readSegment(lines: Line[], table: ReadTable | null, page: number, reading: DocumentReading): ReadTable | null {
  const prose = (from: number, to = lines.length) => {
    for (const line of lines.slice(from, to)) reading.prose.push({ page, text: joinRuns(line.runs) });
  };
  if (!lines.some(isRowLine)) {
    prose(0);
    return table;
  }
  if (!table) {
    prose(0);
    const count = lines.filter(isRowLine).length;
    reading.problems.push({ page, row: null, detail: `${count} line(s) of values with no table header above them` });
    return null;
  }
  const found = groupRows(lines);
  // Every line of every row, wrapped name lines included: a row whose name is only on its wrapped lines still marks its column.
  const columns = columnsFromBody(
    table.header,
    found.rows.flat().flatMap((i) => lines[i]!.runs),
  );
  table.columns.push({ page, columns });
  // This page's rows so far are the last ones: counted from the end, not by a pass over the table's every row.
  let onPage = 0;
  while (onPage < table.rows.length && table.rows[table.rows.length - 1 - onPage]!.page === page) onPage++;
  for (const row of rowCells(lines, found.rows, columns)) table.rows.push({ cells: row.cells, y: row.y, page, row: onPage + row.row });
  reading.rows += found.rows.length;
  for (const problem of found.problems) reading.problems.push({ page, row: problem.row, detail: problem.detail });
  prose(0, found.before);
  if (found.end === null) return table;
  const after = lines.slice(found.end).map((line) => joinRuns(line.runs));
  prose(found.end);
  return after.every((text) => FURNITURE.test(text)) ? table : null;
}
