import type { Line } from './layout-lines.ts';
import { TOLERANCES } from './reader-tolerances.ts';
import { cellsOf, type Column } from './table-columns.ts';

/** One row of a table: the text of each column, and where the row is on its page. */
export interface TableRow {
  cells: string[];
  /** 1-based position among the rows of the table on its page. */
  row: number;
  y: number;
}

export interface RowGroups {
  /** Per row, top to bottom, the indexes of its lines (its own line and any wrapped ones), top to bottom. */
  rows: number[][];
  /** Lines above the first row that belong to no row (a page's title over a continued table). */
  before: number;
  /** The first line below the last row that belongs to none: where the table ends (a footnote, prose), or null. */
  end: number | null;
  /** Lines that cannot be placed: between two rows and as near to both, or far from every row inside the table. */
  problems: { row: number; detail: string }[];
}

// An amount written the Italian way, alone in its run: "4,80", "2.400,00".
const AMOUNT = /^(\d{1,3}(\.\d{3})+|\d+),\d{2}$/;

/** Whether a line is a row of values: one of its runs is an amount (every product row prints its pack price). */
export function isRowLine(line: Line): boolean {
  return line.runs.some((run) => AMOUNT.test(run.text));
}

/**
 * Finds the rows of a table among the lines under its header. A row is a line with a price cell.
 * A line without one is part of the nearest row within `TOLERANCES.wrapReach` of it (a long name
 * wrapped in its cell is printed above and below the row's own line), joined top to bottom; when
 * it is about as near to the row above as to the row below (`TOLERANCES.wrapAmbiguity`), the
 * reader says so instead of guessing. A line beyond reach below the last row ends the table.
 */
export function groupRows(lines: Line[]): RowGroups {
  const anchors = lines.flatMap((line, i) => (isRowLine(line) ? [i] : []));
  const parts = new Map<number, number[]>(anchors.map((i) => [i, [i]]));
  const problems: RowGroups['problems'] = [];
  const numbers = new Map(anchors.map((anchor, n) => [anchor, n + 1]));
  const rowNumber = (lineIndex: number) => numbers.get(lineIndex)!;
  let before = 0;
  let end: number | null = null;
  // The first anchor below line i: it only moves down as i does, so the walk is linear in the lines.
  let next = 0;

  for (let i = 0; i < lines.length && end === null; i++) {
    while (next < anchors.length && anchors[next]! <= i) next++;
    if (parts.has(i)) continue;
    const line = lines[i]!;
    const above = next > 0 ? anchors[next - 1] : undefined;
    const below = anchors[next];
    const reach = (a: number | undefined) => (a === undefined ? Infinity : Math.abs(lines[a]!.y - line.y));
    const [dAbove, dBelow] = [reach(above), reach(below)];
    const limit = TOLERANCES.wrapReach * Math.max(line.height, 1);
    const [near, far] = dAbove <= dBelow ? [above, below] : [below, above];
    const [dNear, dFar] = [Math.min(dAbove, dBelow), Math.max(dAbove, dBelow)];
    if (near === undefined || dNear > limit) {
      if (above === undefined) before = i + 1;
      else if (below === undefined) end = i;
      else
        problems.push({ row: rowNumber(above), detail: `text between rows ${rowNumber(above)} and ${rowNumber(below)}: "${text(line)}"` });
      continue;
    }
    if (far !== undefined && dFar <= limit && dNear > TOLERANCES.wrapAmbiguity * dFar) {
      problems.push({
        row: rowNumber(near),
        detail: `the line "${text(line)}" is about as near to row ${rowNumber(above!)} as to row ${rowNumber(below!)}: cannot tell which it belongs to`,
      });
      continue;
    }
    parts.get(near)!.push(i);
  }

  return { rows: anchors.map((anchor) => parts.get(anchor)!.sort((a, b) => a - b)), before, end, problems };
}

/** The cells of each row: the text of each column over the row's lines, joined top to bottom. */
export function rowCells(lines: Line[], groups: number[][], columns: Column[]): TableRow[] {
  return groups.map((group, n) => {
    const cells = group.map((i) => cellsOf(lines[i]!, columns));
    return {
      row: n + 1,
      y: lines[group.find((i) => isRowLine(lines[i]!))!]!.y,
      cells: columns.map((_, c) =>
        cells
          .map((line) => line[c])
          .filter(Boolean)
          .join(' '),
      ),
    };
  });
}

const text = (line: Line) => line.runs.map((run) => run.text).join(' ');
