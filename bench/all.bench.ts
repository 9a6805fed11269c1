// npm run bench: every bench that holds a figure to a goal, one after the other (never side by
// side: each is timed on a quiet machine), each printing its own report as it goes; then one
// table of every goal row (bench/goal-rows.ts): the median and range of its runs, its reference
// measured in the same runs, the goal, met or missed. BENCH_ONLY=site,sync runs some of them.
// Exits 1 when a goal is missed, so a CI job can hold the figures.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describeRow, verdict, type GoalRow } from './goal-rows.ts';

/** In the order of the table docs/benchmarks.md keeps. */
const BENCHES = ['site', 'serve', 'startup', 'build', 'sync'];
const only = process.env.BENCH_ONLY?.split(',');
const scratch = mkdtempSync(join(tmpdir(), 'tariff-bench-all-'));
const summary = join(scratch, 'goals.jsonl');
const failed: string[] = [];
try {
  for (const name of BENCHES.filter((bench) => !only || only.includes(bench))) {
    console.log(`\n=== bench:${name}`);
    const script = fileURLToPath(new URL(`./${name}.bench.ts`, import.meta.url));
    const ran = spawnSync(process.execPath, [script], { stdio: 'inherit', env: { ...process.env, BENCH_SUMMARY: summary } });
    if (ran.status !== 0) failed.push(`bench:${name} (${ran.signal ?? `exit ${ran.status}`})`);
  }
  const rows = readRows(summary);
  const width = Math.max(...rows.map((row) => row.what.length), 4);
  const goalOf = (row: GoalRow) => `${row.atLeast ? '≥' : '≤'} ${row.goal}${row.unit === '×' ? '×' : ` ${row.unit}`}`;
  console.log(
    `\n${'what'.padEnd(width)}  ${'median (range)'.padEnd(26)}  ${'reference, same runs'.padEnd(44)}  ${'goal'.padEnd(9)}  verdict`,
  );
  for (const row of rows)
    console.log(
      `${row.what.padEnd(width)}  ${describeRow(row).padEnd(26)}  ${row.reference.padEnd(44)}  ${goalOf(row).padEnd(9)}  ${verdict(row)}`,
    );
  const missed = rows.filter((row) => verdict(row) === 'MISSED').length;
  console.log(
    `\n${rows.length} goals: ${rows.length - missed} met, ${missed} missed${failed.length ? `; did not finish: ${failed.join(', ')}` : ''}`,
  );
  process.exitCode = missed > 0 || failed.length > 0 ? 1 : 0;
} finally {
  rmSync(scratch, { recursive: true, force: true });
}

function readRows(path: string): GoalRow[] {
  try {
    return readFileSync(path, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as GoalRow);
  } catch {
    return [];
  }
}
