// npm run bench:startup: how long `tariff` takes to start and finish a call that does almost
// nothing, as a process (what a monitoring check or a till's cron pays on every call): `--version`
// on the product's Node.js, the same through the machine's own `node` when that is another version
// (the hand-over to the bundled Node.js 24), and `build --help` (a command's modules loaded). Side
// by side with `node -e 0`, Node.js's own start. BENCH_COMPARE=<another checkout> runs that tree's
// bin/tariff.js in the same rounds, with the `node` its PATH finds. Median, p99 and range over
// BENCH_RUNS rounds (default 3) of BENCH_CALLS calls each (default 20).
import { spawn, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { bareNodeRss, reportGoal } from './goal-rows.ts';
import { waitForUrl } from './wait-for-url.ts';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const CALLS = Number(process.env.BENCH_CALLS ?? 20);
const CLI = fileURLToPath(new URL('../bin/tariff.js', import.meta.url));
const COMPARE = process.env.BENCH_COMPARE;
const machineNode = spawnSync('sh', ['-c', 'command -v node'], {
  encoding: 'utf8',
  env: { PATH: '/usr/local/bin:/usr/bin:/bin' },
}).stdout.trim();

const percentile = (values: number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(p * values.length))]!;

const cases: [string, string, string[]][] = [
  ['node -e 0 (this Node.js)', process.execPath, ['-e', '0']],
  ['tariff --version', process.execPath, [CLI, '--version']],
  // As a cron job or a shell runs it, with the machine's node first on PATH: sh, then the launcher, exec the bundled Node.js.
  ['./bin/tariff.js --version (run as a program)', CLI, ['--version']],
  [`tariff --version via ${machineNode}`, machineNode, [CLI, '--version']],
  ['tariff build --help', process.execPath, [CLI, 'build', '--help']],
];
if (COMPARE) {
  cases.push([`${COMPARE}: tariff --version`, machineNode, [join(COMPARE, 'bin/tariff.js'), '--version']]);
  cases.push([`${COMPARE}: tariff build --help`, machineNode, [join(COMPARE, 'bin/tariff.js'), 'build', '--help']]);
}

const MACHINE_PATH = `${dirname(machineNode)}:/usr/local/bin:/usr/bin:/bin`;

function time(command: string, args: string[]): number {
  const started = performance.now();
  const ran = spawnSync(command, args, { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, PATH: MACHINE_PATH } });
  if (ran.status !== 0) throw new Error(`${command} ${args.join(' ')} failed: ${ran.stderr}`);
  return performance.now() - started;
}

const medians = new Map<string, number[]>();
for (let run = 0; run < RUNS; run++) {
  const calls = new Map(cases.map(([name]) => [name, [] as number[]]));
  // Interleaved, so a slower moment of the machine weighs on every case alike.
  for (let call = 0; call < CALLS; call++) for (const [name, command, args] of cases) calls.get(name)!.push(time(command, args));
  console.log(`run ${run + 1}`);
  for (const [name, values] of calls) {
    const p50 = percentile(values, 0.5);
    medians.set(name, [...(medians.get(name) ?? []), p50]);
    console.log(`  ${name.padEnd(60)} p50 ${p50.toFixed(0)} ms, p99 ${percentile(values, 0.99).toFixed(0)} ms`);
  }
}
console.log(`median of the ${RUNS} runs' p50 (range)`);
for (const [name, values] of medians)
  console.log(
    `  ${name.padEnd(60)} ${percentile(values, 0.5).toFixed(0)} ms (${Math.min(...values).toFixed(0)}–${Math.max(...values).toFixed(0)})`,
  );

const p50s = (name: string) => medians.get(name)!;
const bare = `node -e 0 ${percentile(p50s('node -e 0 (this Node.js)'), 0.5).toFixed(0)} ms`;
reportGoal({ what: 'tariff build --help', unit: 'ms', runs: p50s('tariff build --help'), reference: bare, goal: 80 });
reportGoal({
  what: 'hand-over to the bundled Node.js (./bin/tariff.js as a program, minus node bin/tariff.js)',
  unit: 'ms',
  runs: p50s('./bin/tariff.js --version (run as a program)').map((value, run) => value - p50s('tariff --version')[run]!),
  reference: `tariff --version ${percentile(p50s('tariff --version'), 0.5).toFixed(0)} ms`,
  goal: 30,
});
await benchStart();

/**
 * `tariff start` (the README's main job), run as a program with the machine's node first on PATH:
 * once it serves the real tariff and its readers are gone (bounded), the processes of its tree
 * and their resident memory, in RUNS runs.
 */
async function benchStart() {
  const rss: number[] = [];
  const counts: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const dataDir = await mkdtemp(join(tmpdir(), 'tariff-bench-start-'));
    const port = 18170 + run;
    const child = spawn(CLI, ['start', '--data-dir', dataDir, '--port', String(port)], {
      stdio: 'ignore',
      env: { ...process.env, PATH: MACHINE_PATH },
    });
    try {
      await waitForUrl(`http://127.0.0.1:${port}/healthz`, 60_000);
      const until = performance.now() + 10_000;
      while (tree(child.pid!).length > 1 && performance.now() < until) await new Promise((resolve) => setTimeout(resolve, 100));
      const pids = tree(child.pid!);
      counts.push(pids.length);
      rss.push(pids.reduce((sum, pid) => sum + rssOf(pid), 0));
    } finally {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
      await rm(dataDir, { recursive: true, force: true });
    }
  }
  console.log(`tariff start, serving: processes ${counts.join(', ')}; RSS of them all ${rss.map((v) => `${v.toFixed(0)} MB`).join(', ')}`);
  if (counts.some((count) => count !== 1)) console.log('goal: tariff start serving as one process → MISSED');
  reportGoal({
    what: 'tariff start, serving the real tariff: RSS (one process)',
    unit: 'MB',
    runs: rss,
    reference: `bare node ${Math.round(await bareNodeRss())} MB`,
    goal: 150,
  });
}

/** A process and its descendants, from /proc. */
function tree(root: number): number[] {
  const children = new Map<number, number[]>();
  const all: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue;
    }
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
  }
  const visit = (pid: number) => {
    all.push(pid);
    for (const child of children.get(pid) ?? []) visit(child);
  };
  visit(root);
  return all;
}

function rssOf(pid: number): number {
  try {
    return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
  } catch {
    return 0;
  }
}
