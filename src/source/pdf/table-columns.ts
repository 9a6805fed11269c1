import type { ColumnRole, HeaderCell, TableHeader } from './header-roles.ts';
import { joinRuns, type Line } from './layout-lines.ts';
import { TOLERANCES } from './reader-tolerances.ts';
import type { TextRun } from './text-runs.ts';

/** A column of a table: its role and header, from `from` (inclusive) to `to` (exclusive) on the x axis. */
export interface Column {
  role: ColumnRole;
  header: string;
  from: number;
  to: number;
}

interface Block {
  x0: number;
  x1: number;
  runs: TextRun[];
}

/**
 * The columns of a table, found as tabula's stream mode finds them: the body rows' runs, projected
 * on the x axis, leave vertical strips of white space between columns; each block of text between
 * two strips is then named by the header cell it lies under (the one it overlaps most, else the
 * nearest). So a right-aligned amount wider than its header, a centred pack wider than "Conf.ne"
 * and a left-aligned code all fall in their column, wherever the header sits. Where two columns'
 * text touches (no strip between them), the block is cut between their headers where the fewest
 * runs cross.
 */
export function columnsFromBody(header: TableHeader, rowRuns: TextRun[]): Column[] {
  const cells = header.cells;
  const owner = new Map<number, Block[]>(cells.map((_, i) => [i, []]));
  for (const block of blocksOf(rowRuns)) {
    const at = ownerOf(block, cells);
    owner.get(at)!.push(block);
  }
  // A header left without text while its neighbour's block lies under it too: the two columns touch.
  for (let i = 0; i < cells.length; i++) {
    if (owner.get(i)!.length > 0) continue;
    for (const j of [i - 1, i + 1]) {
      const shared = owner.get(j)?.find((block) => overlap(block, cells[i]!) > 0);
      if (!shared) continue;
      const [left, right] = splitBlock(shared, j < i ? cells[j]! : cells[i]!, j < i ? cells[i]! : cells[j]!);
      owner.set(
        j,
        owner
          .get(j)!
          .filter((block) => block !== shared)
          .concat(j < i ? left : right),
      );
      owner.set(i, [j < i ? right : left]);
      break;
    }
  }
  const extents = cells.map((cell, i) => {
    const blocks = owner.get(i)!;
    return blocks.length === 0
      ? { x0: cell.x0, x1: cell.x1 }
      : { x0: Math.min(...blocks.map((b) => b.x0)), x1: Math.max(...blocks.map((b) => b.x1)) };
  });
  return cells.map((cell, i) => ({
    role: cell.role,
    header: cell.text,
    from: i === 0 ? -Infinity : boundary(extents[i - 1]!, extents[i]!),
    to: i === cells.length - 1 ? Infinity : boundary(extents[i]!, extents[i + 1]!),
  }));
}

/** The runs merged into blocks wherever no strip of white space `TOLERANCES.columnGap` wide parts them. */
function blocksOf(runs: TextRun[]): Block[] {
  const sorted = [...runs].sort((a, b) => a.x - b.x);
  const blocks: Block[] = [];
  for (const run of sorted) {
    const last = blocks.at(-1);
    const gap = TOLERANCES.columnGap * Math.max(run.height, 1);
    if (last && run.x < last.x1 + gap) {
      last.x1 = Math.max(last.x1, run.x + run.width);
      last.runs.push(run);
    } else {
      blocks.push({ x0: run.x, x1: run.x + run.width, runs: [run] });
    }
  }
  return blocks;
}

const overlap = (a: { x0: number; x1: number }, b: { x0: number; x1: number }) => Math.min(a.x1, b.x1) - Math.max(a.x0, b.x0);

function ownerOf(block: Block, cells: HeaderCell[]): number {
  let best = 0;
  let score = -Infinity;
  cells.forEach((cell, i) => {
    // Overlap when positive; otherwise minus the distance between them.
    const s = overlap(block, cell);
    if (s > score) [best, score] = [i, s];
  });
  return best;
}

/** Cuts a block holding two columns' text between their headers, where the fewest runs cross. */
function splitBlock(block: Block, left: HeaderCell, right: HeaderCell): [Block, Block] {
  const lo = Math.min(left.x1, right.x0);
  const hi = Math.max(left.x1, right.x0);
  const candidates = [lo, hi, (lo + hi) / 2, ...block.runs.flatMap((run) => [run.x, run.x + run.width])].filter((x) => x >= lo && x <= hi);
  const crossing = (x: number) => block.runs.filter((run) => run.x < x && run.x + run.width > x).length;
  let cut = candidates[0]!;
  for (const x of candidates) if (crossing(x) < crossing(cut)) cut = x;
  const side = (keep: (centre: number) => boolean): Block => {
    const runs = block.runs.filter((run) => keep(run.x + run.width / 2));
    return runs.length === 0
      ? { x0: cut, x1: cut, runs }
      : { x0: Math.min(...runs.map((r) => r.x)), x1: Math.max(...runs.map((r) => r.x + r.width)), runs };
  };
  return [side((c) => c < cut), side((c) => c >= cut)];
}

function boundary(left: { x0: number; x1: number }, right: { x0: number; x1: number }): number {
  return (Math.max(left.x1, left.x0) + Math.min(right.x0, right.x1)) / 2;
}

/** The text of each column on a line (empty string where a column holds nothing); a run goes where its centre is. */
export function cellsOf(line: Line, columns: Column[]): string[] {
  return columns.map((column) => joinRuns(line.runs.filter((run) => inColumn(run, column))));
}

function inColumn(run: TextRun, column: Column): boolean {
  const centre = run.x + run.width / 2;
  return centre >= column.from && centre < column.to;
}
