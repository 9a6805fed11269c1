import { referenceUnitOf, type ReferenceUnit } from '../reference-unit.ts';
import { joinRuns, type Line } from './layout-lines.ts';
import { TOLERANCES } from './reader-tolerances.ts';

/**
 * What a column holds, named from its header: the tariff code, the product (whose header is the
 * category's name), the pack, the reference price (per kg, per 1,000 pieces…), a notice's old and
 * new reference price, and the price of a pack.
 */
export type ColumnRole = 'code' | 'product' | 'pack' | 'reference' | 'fromReference' | 'toReference' | 'packPrice';

/** One header cell: its text and where it sits on the line. */
export interface HeaderCell {
  text: string;
  x0: number;
  x1: number;
}

/** A recognised table header: its cells left to right, each with its role. */
export interface TableHeader {
  kind: 'list' | 'notice';
  cells: (HeaderCell & { role: ColumnRole })[];
  /** The category as the product column's header writes it ("Sigari", "Trinciato per sigarette"). */
  categoryText: string;
  /** The unit of the reference price columns, null when the table has none (a Campione d'Italia list). */
  referenceUnit: ReferenceUnit | null;
}

const fold = (text: string) => text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase().replace(/\s+/g, ' ').trim();

/**
 * The synonyms of each role, tried in order on a folded header cell. The authority writes
 * "Codice", "Conf.ne", "€/kg conv.le", "€/1.000 pz.", "€/conf.ne", "Da €/Kg conv.le",
 * "A €/Kg conv.le", "Pari a €/conf.ne", "€/conf.ne*"; the product column is headed by the category.
 */
const SYNONYMS: [ColumnRole, RegExp][] = [
  ['code', /^(codice|cod\.?)( (aams|adm|prodotto))?$/],
  ['packPrice', /^(pari a |prezzo )?€ ?\/ ?conf(\.|ezione|\.ne)?[a-z]*\.?\s*\**$/],
  ['pack', /^conf(\.ne|ezione|\.)?$/],
  ['fromReference', /^da € ?\//],
  ['toReference', /^a € ?\//],
  ['reference', /^€ ?\//],
];

function roleOf(text: string): ColumnRole {
  const folded = fold(text);
  for (const [role, pattern] of SYNONYMS) if (pattern.test(folded)) return role;
  return 'product';
}

/**
 * Header cells of a line: runs closer than `TOLERANCES.headerJoin` are one cell ("€/kg" and
 * "conv.le" printed as two runs are one header).
 */
export function headerCells(line: Line): HeaderCell[] {
  const cells: { runs: Line['runs']; x0: number; x1: number }[] = [];
  for (const run of line.runs) {
    const last = cells.at(-1);
    if (last && run.x - last.x1 < TOLERANCES.headerJoin * Math.max(run.height, 1)) {
      last.runs.push(run);
      last.x1 = Math.max(last.x1, run.x + run.width);
    } else {
      cells.push({ runs: [run], x0: run.x, x1: run.x + run.width });
    }
  }
  return cells.map((cell) => ({ text: joinRuns(cell.runs), x0: cell.x0, x1: cell.x1 }));
}

/**
 * Recognises a table header line by the roles of its cells, in any order: a price list's (one
 * product column, a pack column, the pack price, at most one reference price) or a price-change
 * notice's (old and new reference price besides). Returns null for any other line.
 */
export function recogniseHeader(line: Line): TableHeader | null {
  // Every header has a pack price ("€/conf.ne"): most lines, rows of values, are none, and cheaply so.
  if (!line.runs.some((run) => run.text.includes('€'))) return null;
  const cells = headerCells(line).map((cell) => ({ ...cell, role: roleOf(cell.text) }));
  const count = (role: ColumnRole) => cells.filter((cell) => cell.role === role).length;
  if (count('product') !== 1 || count('pack') !== 1 || count('packPrice') !== 1 || count('code') > 1) return null;
  const product = cells.find((cell) => cell.role === 'product')!;
  // A category is words, not an amount or a lone symbol: a row of values is no header.
  if (!/\p{L}{3}/u.test(product.text)) return null;
  const base = { cells, categoryText: product.text };
  if (count('fromReference') === 1 && count('toReference') === 1 && count('reference') === 0) {
    const units = cells
      .filter((cell) => cell.role === 'fromReference' || cell.role === 'toReference')
      .map((cell) => referenceUnitOf(cell.text));
    if (units[0] === null || units[0] !== units[1]) return null;
    return { kind: 'notice', referenceUnit: units[0]!, ...base };
  }
  if (count('fromReference') + count('toReference') > 0 || count('reference') > 1) return null;
  const reference = cells.find((cell) => cell.role === 'reference');
  const referenceUnit = reference ? referenceUnitOf(reference.text) : null;
  if (reference && referenceUnit === null) return null;
  return { kind: 'list', referenceUnit, ...base };
}
