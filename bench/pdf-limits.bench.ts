// npm run bench:pdf-limits: every shape of the hostile corpus (fixtures/hostile-pdfs.ts) through
// every command that reads a PDF (inspect, build, history import), each run as an operator runs it:
// the wall time from start to exit, and the peak resident memory of the whole command tree (the
// command and its PDF readers, summed; docs/source-format.md bounds it at 400 MB), with the exit
// status. Median and range over BENCH_RUNS rounds (default 3), the rounds side by side. Then the
// stop: SIGTERM to a build of the 20-page header bomb at ten moments of its reading and refusal,
// and to one of a document that would read until its limit; the time from the signal to the
// command's exit, and whether a reader outlived it. Then SIGTERM at fifteen moments from the
// command's first millisecond (module loading included) to its reading of the real cigar list:
// the time to its exit (the promise is 1 s), its status and whether it said why.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeSlowPdf } from '../fixtures/adm-pdf.ts';
import { HOSTILE_SHAPES, makeHeaderBomb, makeLongList, type HostileShape } from '../fixtures/hostile-pdfs.ts';
import { measuredCommand } from '../test/helpers/measured-command.ts';
import { CLI, REPO } from '../test/helpers/run-cli.ts';
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
  // Valid lists far longer than any real one (2,821 rows): read just under the rows cap, refused past it.
  const LONG: HostileShape[] = [
    {
      name: 'valid-list-28490',
      what: 'a valid list of 28,490 products on 475 pages',
      make: () => makeLongList(28_490),
      outcome: 'read',
      says: '',
    },
    {
      name: 'valid-list-54900',
      what: 'a valid list of 54,900 products on 915 pages',
      make: () => makeLongList(54_900),
      outcome: 'refused',
      says: '',
    },
  ];
  for (const shape of [...HOSTILE_SHAPES, ...LONG]) {
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
    ['a document read until its limit', makeSlowPdf()],
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
  console.log(`SIGTERM from the command's first millisecond: seconds from the signal to the exit, ${RUNS} rounds of each moment`);
  const real = join(REPO, 'fixtures/adm/listino-sigari-2026-07-22.pdf');
  for (const delayMs of [0, 5, 10, 20, 30, 40, 60, 80, 100, 150, 200, 300, 500, 800, 1000]) {
    const seconds: number[] = [];
    const outcomes = new Set<string>();
    for (let round = 0; round < RUNS; round++) {
      const data = mkdtempSync(join(dir, 'data-'));
      const child = spawn(process.execPath, [CLI, 'build', '--source', real, '--out', join(data, 'out'), '--data-dir', data], {
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let said = '';
      child.stderr!.on('data', (chunk: Buffer) => (said += chunk.toString()));
      const exited = new Promise<{ at: number; status: number | string | null }>((resolve) =>
        child.once('close', (code, signal) => resolve({ at: performance.now(), status: code ?? signal })),
      );
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      const signalled = performance.now();
      child.kill('SIGTERM');
      const { at, status } = await exited;
      seconds.push((at - signalled) / 1000);
      // A stop said on stderr; a build that finished first exits 0; SIGTERM before Node.js runs any
      // of the command ends it by the default action.
      outcomes.add(status === 0 ? 'finished first' : /stopped by SIGTERM/.test(said) ? `${status}, said` : `${status}, not said`);
    }
    console.log(`  at ${String(delayMs).padStart(4)} ms  ${spread(seconds, 2)} s  ${[...outcomes].join(' / ')}`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
process.exit(0);
