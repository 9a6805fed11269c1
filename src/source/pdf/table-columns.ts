import type { Line } from './layout-lines.ts';
import { joinRuns } from './layout-lines.ts';
import type { TextRun } from './text-runs.ts';

/** One header cell: its text and where it sits on the line. */
export interface HeaderCell {
  text: string;
  x0: number;
  x1: number;
}

/** A column of a table: from `from` (inclusive) to `to` (exclusive) on the x axis. */
export interface Column {
  header: string;
  from: number;
  to: number;
}

/**
 * Header cells of a line: runs closer than a third of the text height are one cell ("€/kg" and
 * "conv.le" printed as two runs are one header).
 */
export function headerCells(line: Line): HeaderCell[] {
  const cells: { runs: TextRun[]; x0: number; x1: number }[] = [];
  for (const run of line.runs) {
    const last = cells.at(-1);
    if (last && run.x - last.x1 < 0.34 * Math.max(run.height, 1)) {
      last.runs.push(run);
      last.x1 = Math.max(last.x1, run.x + run.width);
    } else {
      cells.push({ runs: [run], x0: run.x, x1: run.x + run.width });
    }
  }
  return cells.map((cell) => ({ text: joinRuns(cell.runs), x0: cell.x0, x1: cell.x1 }));
}

/**
 * Column ranges under a header. Values may be left-aligned, centred or right-aligned under their
 * header and wider than it, so the boundary between two columns lies in the gap between their
 * headers, moved left by up to half the right header's width when the gap allows it (a centred
 * pack description wider than "Conf.ne"). A run belongs to the column that holds its centre.
 */
export function columnsOf(cells: HeaderCell[]): Column[] {
  return cells.map((cell, i) => {
    const previous = cells[i - 1];
    const next = cells[i + 1];
    return { header: cell.text, from: previous ? boundary(previous, cell) : -Infinity, to: next ? boundary(cell, next) : Infinity };
  });
}

function boundary(left: HeaderCell, right: HeaderCell): number {
  const shifted = right.x0 - (right.x1 - right.x0) / 2;
  return shifted > left.x1 ? shifted : (left.x1 + right.x0) / 2;
}

/** The text of each column on a line (empty string where a column holds nothing). */
export function cellsOf(line: Line, columns: Column[]): string[] {
  return columns.map((column) => joinRuns(line.runs.filter((run) => inColumn(run, column))));
}

export function inColumn(run: TextRun, column: Column): boolean {
  const centre = run.x + run.width / 2;
  return centre >= column.from && centre < column.to;
}
