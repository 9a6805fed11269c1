import { parseEuroCents } from '../parse-euro.ts';
import type { ColumnRole } from './header-roles.ts';
import type { Problem, ProblemLog } from './problems.ts';
import type { PlacedRow, ReadTable } from './read-tables.ts';
import { parseTariffCode } from '../tariff-code.ts';

/** A tariff code as printed: a positive whole number of up to 9 digits. */

/** A positive euro amount written the Italian way, in cents. */
export function readPrice(text: string): number | null {
  const cents = parseEuroCents(text);
  return cents !== null && cents > 0 ? cents : null;
}

const PRICE_LABELS: Partial<Record<ColumnRole, string>> = {
  reference: 'reference price',
  fromReference: 'old reference price',
  toReference: 'new reference price',
  packPrice: 'price per pack',
};

export interface ProductRow {
  page: number;
  row: number;
  /** What the row is, to find it in the document: `codice 21872 "TOSCANO"`, or the name alone. */
  what: string | undefined;
  /** Null when the table has no code column. */
  admCode: number | null;
  name: string;
  pack: string;
  /** The amounts of the priced roles asked for, in cents, by role. */
  cents: Partial<Record<ColumnRole, number>>;
}

/**
 * Reads a product row of a list or a notice: code (when the table has the column), name, pack
 * and the priced columns asked for. Every value that does not read is a problem with the row's
 * place; the row is then null.
 */
export function readProductRow(table: ReadTable, row: PlacedRow, prices: ColumnRole[], problems: ProblemLog): ProductRow | null {
  const { cells } = table.header;
  const codeText = cellOf(cells, row, 'code');
  const name = cellOf(cells, row, 'product');
  const pack = cellOf(cells, row, 'pack');
  const hasCode = cells.some((cell) => cell.role === 'code');
  const what = codeText ? `codice ${codeText}${name ? ` "${name}"` : ''}` : name ? `"${name}"` : undefined;
  const before = problems.length;
  const admCode = hasCode ? parseTariffCode(codeText) : null;
  if (hasCode && admCode === null)
    problems.push(problemAt(row, what, codeText ? `the code "${codeText}" is not a positive whole number` : 'the code is missing'));
  if (!name) problems.push(problemAt(row, what, 'the product name is missing'));
  if (!pack) problems.push(problemAt(row, what, 'the pack (Conf.ne) is missing'));
  for (const [label, text] of [
    ['product name', name],
    ['pack', pack],
  ] as const)
    if (UNMAPPED.test(text))
      problems.push(
        problemAt(
          row,
          what,
          `the ${label} holds characters no font of the document maps to text (U+FFFD or control characters): its font or content is damaged`,
        ),
      );
  const cents: ProductRow['cents'] = {};
  for (const role of prices) {
    const text = cellOf(cells, row, role);
    const amount = readPrice(text);
    if (amount === null)
      problems.push(
        problemAt(row, what, `the ${PRICE_LABELS[role]} "${text}" is not a positive euro amount written the Italian way (e.g. 1.234,00)`),
      );
    else cents[role] = amount;
  }
  return problems.length === before ? { page: row.page, row: row.row, what, admCode, name, pack, cents } : null;
}

/** What a glyph with no Unicode mapping reads as (U+FFFD), and control characters no list prints. */
// eslint-disable-next-line no-control-regex
const UNMAPPED = /[\uFFFD\u0000-\u001F\u007F-\u009F]/;

function cellOf(cells: ReadTable['header']['cells'], row: PlacedRow, role: ColumnRole): string {
  const at = cells.findIndex((cell) => cell.role === role);
  return at === -1 ? '' : row.cells[at]!;
}

function problemAt(row: PlacedRow, what: string | undefined, detail: string): Problem {
  return { page: row.page, row: row.row, what, detail };
}
