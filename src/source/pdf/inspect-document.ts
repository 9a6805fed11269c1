import type { ColumnRole } from './header-roles.ts';
import type { DocumentKind } from './interpret-document.ts';
import type { Problem } from './problems.ts';
import { readPdfDocument } from './read-pdf-document.ts';

/** How one of the authority's PDFs reads: what an operator looks at when the authority changes its layout. */
export interface DocumentInspection {
  source: string;
  kind: DocumentKind;
  category: string | null;
  /** The category as the table header writes it. */
  categoryText: string | null;
  date: string | null;
  referenceUnit: string | null;
  pages: number;
  tables: {
    kind: 'list' | 'notice';
    page: number;
    header: string[];
    /** The columns found on each page the table spans: role, header and x range (points from the page's left edge). */
    columns: { page: number; columns: { role: ColumnRole; header: string; from: number | null; to: number | null }[] }[];
    rows: { page: number; row: number; cells: Partial<Record<ColumnRole, string>> }[];
  }[];
  /** Lines outside the tables (titles, prose, footnotes), as read. */
  text: { page: number; text: string }[];
  /** The problems kept (the first READER_LIMITS.problemsPerDocument), with their page and row. */
  problems: Problem[];
  /** Problems beyond those, counted but not kept. */
  problemsOmitted: number;
}

const finite = (x: number) => (Number.isFinite(x) ? Math.round(x * 10) / 10 : null);

/**
 * Reads a PDF the way `tariff build` does and reports everything it found: kind, category, date,
 * the columns with their x ranges, every row with its page and row number, and every problem
 * (not only the first few). Never throws for the content; an unreadable PDF throws as in a build.
 */
export async function inspectDocument(bytes: Uint8Array, source: string): Promise<DocumentInspection> {
  const document = await readPdfDocument(bytes, source);
  const { reading } = document;
  return {
    source,
    kind: document.kind,
    category: document.feedCategory,
    categoryText: reading.tables[0]?.header.categoryText ?? null,
    date: document.date,
    referenceUnit: document.referenceUnit,
    pages: reading.pages,
    tables: reading.tables.map((table) => ({
      kind: table.header.kind,
      page: table.page,
      header: table.header.cells.map((cell) => cell.text),
      columns: table.columns.map(({ page, columns }) => ({
        page,
        columns: columns.map((column) => ({ role: column.role, header: column.header, from: finite(column.from), to: finite(column.to) })),
      })),
      rows: table.rows.map((row) => ({
        page: row.page,
        row: row.row,
        cells: Object.fromEntries(table.header.cells.map((cell, i) => [cell.role, row.cells[i] ?? ''])),
      })),
    })),
    text: reading.prose,
    problems: [...document.problems],
    problemsOmitted: document.problems.omitted,
  };
}
