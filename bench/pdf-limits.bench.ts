// npm run bench:pdf-limits: every shape of the hostile corpus (fixtures/hostile-pdfs.ts) through
// every command that reads a PDF (inspect, build, history import), each run as an operator runs it:
// the wall time from start to exit, and the peak resident memory of the whole command tree (the
// command and its PDF readers, summed; docs/source-format.md bounds it at 400 MB), with the exit
// status. Median and range over BENCH_RUNS rounds (default 3), the rounds side by side. Then the
// stop: SIGTERM to a build of the 20-page header bomb at ten moments of its reading and refusal,
// and to one of a document that would read until its deadline; the time from the signal to the
// command's exit (the promise is 5 s), and whether a reader outlived it.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeSlowPdf } from '../fixtures/adm-pdf.ts';
import { HOSTILE_SHAPES, makeHeaderBomb } from '../fixtures/hostile-pdfs.ts';
import { measuredCommand } from '../test/helpers/measured-command.ts';
import { stoppedBuild } from '../test/helpers/stopped-build.ts';

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const dir = mkdtempSync(join(tmpdir(), 'tariff-bench-pdf-limits-'));
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const spread = (values: number[], digits: number) =>
  `${median(values).toFixed(digits)} (${Math.min(...values).toFixed(digits)}–${Math.max(...values).toFixed(digits)})`;

const COMMANDS: [string, (file: string, dataDir: string) => string[]][] = [
  ['inspect', (file) => ['inspect', file, '--no-rows']],
  ['build', (file, dataDir) => ['build', '--source', file, '--out', join(dataDir, 'out'), '--data-dir', dataDir]],
  ['history import', (file, dataDir) => ['history', 'import', file, '--data-dir', dataDir]],
];

try {
  console.log(`the hostile corpus; median (range) of ${RUNS} rounds; peak: the command and its readers, summed resident memory`);
  let worst = 0;
  for (const shape of HOSTILE_SHAPES) {
    const file = join(dir, `${shape.name}.pdf`);
    const bytes = await shape.make();
    writeFileSync(file, bytes);
    console.log(`${shape.name}: ${shape.what} (${(bytes.length / 1048576).toFixed(1)} MB), expected ${shape.outcome}`);
    for (const [command, args] of COMMANDS) {
      const seconds: number[] = [];
      const peaks: number[] = [];
      const statuses = new Set<number>();
      for (let round = 0; round < RUNS; round++) {
        const run = await measuredCommand(args(file, mkdtempSync(join(dir, 'data-'))));
        seconds.push(run.seconds);
        peaks.push(run.peak / 1048576);
        statuses.add(run.status);
      }
      worst = Math.max(worst, ...peaks);
      console.log(`  ${command.padEnd(15)} exit ${[...statuses].join('/')}  ${spread(seconds, 2)} s  peak ${spread(peaks, 0)} MB`);
    }
  }
  console.log(`largest peak of any command: ${worst.toFixed(0)} MB (bound 400 MB)`);
  console.log(`SIGTERM during a build: seconds from the signal to the exit, median (range) of ${RUNS} rounds of ten moments`);
  for (const [what, bytes] of [
    ['header bomb, 20 pages', makeHeaderBomb(20)],
    ['a document read until its deadline', makeSlowPdf()],
  ] as const) {
    const file = join(dir, 'stopped.pdf');
    writeFileSync(file, bytes);
    const seconds: number[] = [];
    const statuses = new Set<number | string>();
    let left = 0;
    for (let round = 0; round < RUNS * 10; round++) {
      const stop = await stoppedBuild(file, round % 10, mkdtempSync(join(dir, 'data-')));
      seconds.push(stop.seconds);
      statuses.add(stop.status ?? '?');
      left += stop.left.length;
    }
    console.log(`  ${what.padEnd(36)} exit ${[...statuses].join('/')}  ${spread(seconds, 2)} s  readers left: ${left}`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
process.exit(0);
