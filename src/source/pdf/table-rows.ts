import type { Line } from './layout-lines.ts';
import { cellsOf, type Column } from './table-columns.ts';

/** One row of a table: the text of each column, and where the row is on its page. */
export interface TableRow {
  cells: string[];
  /** 1-based position among the rows of the table on its page. */
  row: number;
  y: number;
}

export interface TableRowsResult {
  rows: TableRow[];
  /** The first line that is neither a row nor part of one: where the table ends, or stray text. */
  end: { index: number; text: string } | null;
}

/**
 * Reads the rows of a table from the lines under its header. A row is a line with text in one of
 * the `anchor` columns (code or prices). A line with text only elsewhere, within the row's height
 * of a row, is part of that row (a long name wrapped in its cell, printed above and below the
 * row's centre line), in top-to-bottom order. Any other line ends the table.
 */
export function tableRows(lines: Line[], columns: Column[], anchor: number[]): TableRowsResult {
  const cells = lines.map((line) => cellsOf(line, columns));
  const isAnchor = cells.map((c) => anchor.some((i) => c[i] !== ''));
  const rows: (TableRow & { parts: { y: number; cells: string[] }[] })[] = [];
  const owner = new Map<number, number>();
  lines.forEach((line, i) => {
    if (isAnchor[i])
      owner.set(i, rows.push({ cells: cells[i]!, row: rows.length + 1, y: line.y, parts: [{ y: line.y, cells: cells[i]! }] }) - 1);
  });

  let end: TableRowsResult['end'] = null;
  lines.forEach((line, i) => {
    if (isAnchor[i] || end) return;
    // The nearest row above or below, if this line lies within its height.
    let best = -1;
    let distance = Infinity;
    for (const j of [i - 1, i + 1, i - 2, i + 2]) {
      if (j < 0 || j >= lines.length || !isAnchor[j]) continue;
      const d = Math.abs(lines[j]!.y - line.y);
      if (d < distance) [best, distance] = [j, d];
    }
    if (best >= 0 && distance <= 1.25 * Math.max(line.height, lines[best]!.height, 1)) {
      rows[owner.get(best)!]!.parts.push({ y: line.y, cells: cells[i]! });
    } else {
      end = { index: i, text: cells[i]!.filter(Boolean).join(' ') };
    }
  });

  const kept = end ? rows.filter((row) => row.y > lines[(end as { index: number }).index]!.y) : rows;
  return {
    rows: kept.map(({ parts, row, y }) => {
      parts.sort((a, b) => b.y - a.y);
      return {
        row,
        y,
        cells: columns.map((_, c) =>
          parts
            .map((part) => part.cells[c])
            .filter(Boolean)
            .join(' '),
        ),
      };
    }),
    end,
  };
}
