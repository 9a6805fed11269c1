import { foldText } from '../category-names.ts';
import type { Line } from './layout-lines.ts';
import { columnsOf, headerCells, type Column } from './table-columns.ts';

/** The roles of the columns the builder reads, by their position under the header. */
export interface TableHeader {
  kind: 'list' | 'notice';
  /** Index of the header line among the page's lines. */
  index: number;
  /** The category as the header's category column writes it ("Sigari"). */
  categoryText: string;
  columns: Column[];
  /** Column index of each field; `code` is null in a notice table without codes. */
  at: { code: number | null; name: number; pack: number; perKg: number; perPack: number; fromPerKg: number | null };
}

const isCode = (f: string) => f === 'codice' || f === 'cod' || f === 'codice aams' || f === 'codice adm';
const isPack = (f: string) => f.startsWith('conf');
const isPerKg = (f: string) => /\bkg\b/.test(f);
const isPerPack = (f: string) => f.includes('conf');

/**
 * Recognises a table header line: a price list's `Codice | <Categoria> | Conf.ne | €/kg conv.le |
 * €/conf.ne`, or a price-change notice's `[Codice |] <Categoria> | Conf.ne | Da €/Kg conv.le |
 * A €/Kg conv.le | Pari a €/conf.ne`. Returns null for any other line.
 */
export function recogniseHeader(line: Line, index: number): TableHeader | null {
  const cells = headerCells(line);
  const folded = cells.map((cell) => foldText(cell.text));
  const columns = () => columnsOf(cells);
  if (
    folded.length === 5 &&
    isCode(folded[0]!) &&
    isPack(folded[2]!) &&
    isPerKg(folded[3]!) &&
    !folded[3]!.startsWith('da ') &&
    isPerPack(folded[4]!)
  ) {
    return {
      kind: 'list',
      index,
      categoryText: cells[1]!.text,
      columns: columns(),
      at: { code: 0, name: 1, pack: 2, perKg: 3, perPack: 4, fromPerKg: null },
    };
  }
  const notice = (offset: number) =>
    isPack(folded[offset + 1]!) &&
    folded[offset + 2]!.startsWith('da ') &&
    isPerKg(folded[offset + 2]!) &&
    folded[offset + 3]!.startsWith('a ') &&
    isPerKg(folded[offset + 3]!) &&
    isPerPack(folded[offset + 4]!);
  if (folded.length === 6 && isCode(folded[0]!) && notice(1)) {
    return {
      kind: 'notice',
      index,
      categoryText: cells[1]!.text,
      columns: columns(),
      at: { code: 0, name: 1, pack: 2, fromPerKg: 3, perKg: 4, perPack: 5 },
    };
  }
  if (folded.length === 5 && !isCode(folded[0]!) && notice(0)) {
    return {
      kind: 'notice',
      index,
      categoryText: cells[0]!.text,
      columns: columns(),
      at: { code: null, name: 0, pack: 1, fromPerKg: 2, perKg: 3, perPack: 4 },
    };
  }
  return null;
}
