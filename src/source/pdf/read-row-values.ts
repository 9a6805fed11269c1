import { parseEuroCents } from '../parse-euro.ts';
import type { Problems } from './problems.ts';
import type { TableRow } from './table-rows.ts';

/** A tariff code as printed: a positive whole number of up to 9 digits. */
export function readCode(text: string): number | null {
  const trimmed = text.trim();
  if (!/^\d{1,9}$/.test(trimmed)) return null;
  const code = Number(trimmed);
  return code > 0 ? code : null;
}

/** A positive euro amount written the Italian way, in cents. */
export function readPrice(text: string): number | null {
  const cents = parseEuroCents(text);
  return cents !== null && cents > 0 ? cents : null;
}

/** A priced column of a table, and how to name it in a message. */
export interface PriceColumn {
  column: number;
  label: string;
  example: string;
}

export interface ProductRow {
  /** Where the row is, with its code and name when they read: "sigari.pdf page 3 row 4 (codice 21872 "…")". */
  where: string;
  /** Null when the table has no code column. */
  admCode: number | null;
  name: string;
  pack: string;
  /** The amounts of `prices`, in cents, in the same order. */
  cents: number[];
}

/**
 * Reads a product row of a list or a notice: code (when the table has the column), name, pack
 * and the priced columns. Every value that does not read is reported with the row's place;
 * the row is then null.
 */
export function readProductRow(
  row: TableRow,
  at: { code: number | null; name: number; pack: number },
  prices: PriceColumn[],
  page: string,
  problems: Problems,
): ProductRow | null {
  const cell = (i: number) => row.cells[i]!;
  const codeText = at.code === null ? '' : cell(at.code);
  const [name, pack] = [cell(at.name), cell(at.pack)];
  const where = `${page} row ${row.row}${codeText ? ` (codice ${codeText}${name ? ` "${name}"` : ''})` : name ? ` ("${name}")` : ''}`;
  const before = problems.count;
  const admCode = at.code === null ? null : readCode(codeText);
  if (at.code !== null && admCode === null)
    problems.add(where, codeText ? `the code "${codeText}" is not a positive whole number` : 'the code is missing');
  if (!name) problems.add(where, 'the product name is missing');
  if (!pack) problems.add(where, 'the pack (Conf.ne) is missing');
  const cents = prices.map(({ column, label, example }) => {
    const amount = readPrice(cell(column));
    if (amount === null)
      problems.add(where, `the ${label} "${cell(column)}" is not a positive euro amount written the Italian way (e.g. ${example})`);
    return amount ?? 0;
  });
  return problems.count === before ? { where, admCode, name, pack, cents } : null;
}
