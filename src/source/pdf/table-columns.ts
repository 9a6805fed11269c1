import type { ColumnRole, HeaderCell, TableHeader } from './header-roles.ts';
import { joinRuns, type Line } from './layout-lines.ts';
import { TOLERANCES } from './reader-tolerances.ts';
import type { TextRun } from './text-runs.ts';
import { crossingCount } from './crossing-runs.ts';

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
 * on the x axis, leave vertical strips of white space between columns; the blocks of text between
 * the strips are then named by the header cells, left to right, each header taking the blocks
 * nearest it. So a right-aligned amount wider than its header, a centred pack wider than "Conf.ne"
 * and a left-aligned code all fall in their column, wherever the header sits. Where two columns'
 * text touches (fewer blocks than headers), the shared block is cut between their headers where
 * the fewest runs cross.
 */
export function columnsFromBody(header: TableHeader, rowRuns: TextRun[]): Column[] {
  const cells = header.cells;
  const blocks = blocksOf(rowRuns);
  const owner = blocks.length >= cells.length ? assignInOrder(blocks, cells) : assignTouching(blocks, cells);
  const extents = cells.map((cell, i) => {
    const own = owner.get(i) ?? [];
    return own.length === 0 ? { x0: cell.x0, x1: cell.x1 } : spanOf(own.map((block) => ({ x0: block.x0, x1: block.x1 })));
  });
  return cells.map((cell, i) => ({
    role: cell.role,
    header: cell.text,
    from: i === 0 ? -Infinity : boundary(extents[i - 1]!, extents[i]!),
    to: i === cells.length - 1 ? Infinity : boundary(extents[i]!, extents[i + 1]!),
  }));
}

/** How far a block is from a header cell: 0 when they overlap (less a little per point of overlap, to break ties). */
const distance = (block: Block, cell: HeaderCell) =>
  Math.max(0, block.x0 - cell.x1, cell.x0 - block.x1) - 0.001 * Math.max(0, overlap(block, cell));

/**
 * At least as many blocks as headers: each header gets one or more consecutive blocks, left to
 * right, the assignment that keeps blocks nearest their headers (a dynamic programme over the two
 * orders). A header narrower or wider than its column, or standing over a neighbour's text, cannot
 * take that neighbour's column: the order decides.
 */
function assignInOrder(blocks: Block[], cells: HeaderCell[]): Map<number, Block[]> {
  const n = blocks.length;
  const m = cells.length;
  // best[i][j]: the least cost of the first i blocks over the first j headers, block i-1 under header j-1.
  const best = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(Infinity));
  const from = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  best[0]![0] = 0;
  for (let i = 1; i <= n; i++)
    for (let j = 1; j <= Math.min(i, m); j++) {
      const [same, next] = [best[i - 1]![j]!, best[i - 1]![j - 1]!];
      best[i]![j] = distance(blocks[i - 1]!, cells[j - 1]!) + Math.min(same, next);
      from[i]![j] = same < next ? j : j - 1;
    }
  const owner = new Map<number, Block[]>();
  for (let i = n, j = m; i > 0; j = from[i]![j]!, i--) owner.set(j - 1, [blocks[i - 1]!, ...(owner.get(j - 1) ?? [])]);
  return owner;
}

/**
 * Fewer blocks than headers: two columns' text touches. Each block goes to the header it overlaps
 * most; a header left without text while a neighbour's block lies under it too shares that block,
 * cut between the two headers.
 */
function assignTouching(blocks: Block[], cells: HeaderCell[]): Map<number, Block[]> {
  const owner = new Map<number, Block[]>(cells.map((_, i) => [i, []]));
  for (const block of blocks) owner.get(ownerOf(block, cells))!.push(block);
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
  return owner;
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
  const crossing = crossingCount(block.runs);
  let cut = candidates[0]!;
  let fewest = crossing(cut);
  for (const x of candidates) {
    const count = crossing(x);
    if (count < fewest) [cut, fewest] = [x, count];
  }
  const side = (keep: (centre: number) => boolean): Block => {
    const runs = block.runs.filter((run) => keep(run.x + run.width / 2));
    return runs.length === 0 ? { x0: cut, x1: cut, runs } : { ...spanOf(runs.map((run) => ({ x0: run.x, x1: run.x + run.width }))), runs };
  };
  return [side((c) => c < cut), side((c) => c >= cut)];
}

/** The span of extents, without spreading them into Math.min's arguments (a hostile page has too many). */
function spanOf(extents: { x0: number; x1: number }[]): { x0: number; x1: number } {
  let [x0, x1] = [Infinity, -Infinity];
  for (const extent of extents) [x0, x1] = [Math.min(x0, extent.x0), Math.max(x1, extent.x1)];
  return { x0, x1 };
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
