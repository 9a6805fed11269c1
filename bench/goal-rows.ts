// The figures a bench holds to a goal (docs/benchmarks.md): each printed as one line by the bench
// that measured it, and, when BENCH_SUMMARY names a file, appended to it as a JSON line, for
// `npm run bench` (bench/all.bench.ts) to print every bench's rows as one table.
import { spawn } from 'node:child_process';
import { appendFileSync, readFileSync } from 'node:fs';

export interface GoalRow {
  /** What was measured, as the table names it. */
  what: string;
  unit: 'ms' | 'MB' | '×';
  /** The runs' figures (at least three), side by side with the reference's in the same run. */
  runs: number[];
  /** What it is compared with, measured in the same run (`bare node 44 MB`). */
  reference: string;
  /** At most this (or, with `atLeast`, at least this) in the median of the runs. */
  goal: number;
  atLeast?: boolean;
}

export const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

const digits = (unit: GoalRow['unit']) => (unit === '×' ? 2 : 0);
const figure = (value: number, unit: GoalRow['unit']) => `${value.toFixed(digits(unit))}${unit === '×' ? '×' : ` ${unit}`}`;

/** Whether the median meets the goal, and whether every run did (a goal met only in the best run is missed). */
export function verdict(row: GoalRow): string {
  const meets = (value: number) => (row.atLeast ? value >= row.goal : value <= row.goal);
  if (!meets(median(row.runs))) return 'MISSED';
  return row.runs.every(meets) ? 'met' : 'met (median; not every run)';
}

export function describeRow(row: GoalRow): string {
  const range = `${figure(Math.min(...row.runs), row.unit)}–${figure(Math.max(...row.runs), row.unit)}`;
  return `${figure(median(row.runs), row.unit)} (${range})`;
}

/** Prints the row and hands it to `npm run bench`'s table. */
export function reportGoal(row: GoalRow): void {
  console.log(
    `goal: ${row.what}: median ${describeRow(row)}; reference ${row.reference}; goal ${row.atLeast ? '≥' : '≤'} ${figure(row.goal, row.unit)} → ${verdict(row)}`,
  );
  const summary = process.env.BENCH_SUMMARY;
  if (summary) appendFileSync(summary, `${JSON.stringify(row)}\n`);
}

/** The resident set of a bare `node` of this runtime, idle: the floor every process starts from. */
export async function bareNodeRss(): Promise<number> {
  const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 5000)'], { stdio: 'ignore' });
  await new Promise((resolve) => setTimeout(resolve, 500));
  const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
  child.kill('SIGKILL');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) / 1024;
}
