// npm run bench:startup: how long `tariff` takes to start and finish a call that does almost
// nothing, as a process (what a monitoring check or a till's cron pays on every call): `--version`
// on the product's Node.js, the same through the machine's own `node` when that is another version
// (the hand-over to the bundled Node.js 24), and `build --help` (a command's modules loaded). Side
// by side with `node -e 0`, Node.js's own start. BENCH_COMPARE=<another checkout> runs that tree's
// bin/tariff.js in the same rounds, with the `node` its PATH finds. Median, p99 and range over
// BENCH_RUNS rounds (default 3) of BENCH_CALLS calls each (default 20).
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
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
  [`tariff --version via ${machineNode}`, machineNode, [CLI, '--version']],
  ['tariff build --help', process.execPath, [CLI, 'build', '--help']],
];
if (COMPARE) {
  cases.push([`${COMPARE}: tariff --version`, machineNode, [join(COMPARE, 'bin/tariff.js'), '--version']]);
  cases.push([`${COMPARE}: tariff build --help`, machineNode, [join(COMPARE, 'bin/tariff.js'), 'build', '--help']]);
}

function time(command: string, args: string[]): number {
  const started = performance.now();
  const ran = spawnSync(command, args, { stdio: ['ignore', 'ignore', 'pipe'] });
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
