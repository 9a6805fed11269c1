// npm run bench:sync: `tariff sync` against a real `tariff serve` on loopback holding the
// realistic release (10,000 products, 100,000 barcodes): a full sync per format into an empty
// directory, and a sync with nothing new, each run as its own process; side by side in each run,
// curl fetching the same manifest and file (the transfer alone, no checks). Prints wall time,
// reads spent and peak memory: median and range over BENCH_RUNS (default 5).
import { execFileSync, spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { generateTariff } from '../fixtures/generate-tariff.ts';
import { reportGoal } from './goal-rows.ts';

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const CLI = fileURLToPath(new URL('../bin/tariff.js', import.meta.url));
const PRELOAD = fileURLToPath(new URL('./report-maxrss.cjs', import.meta.url));
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length % 2 ? sorted[(sorted.length - 1) / 2]! : (sorted[sorted.length / 2 - 1]! + sorted[sorted.length / 2]!) / 2;
};
const summary = (values: number[], unit: string, digits = 0) =>
  `median ${median(values).toFixed(digits)} ${unit} (${Math.min(...values).toFixed(digits)}–${Math.max(...values).toFixed(digits)})`;

const work = await mkdtemp(join(tmpdir(), 'tariff-bench-sync-'));
const dataDir = join(work, 'data');
const tariff = (args: string[]) =>
  execFileSync(process.execPath, [CLI, ...args, '--data-dir', dataDir], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
let serve: ReturnType<typeof spawn> | null = null;
try {
  const generated = generateTariff({ products: 10_000, barcodes: 100_000, effectiveFrom: '2026-11-01' });
  await mkdir(join(work, 'input'), { recursive: true });
  for (const doc of generated.documents) await writeFile(join(work, 'input', doc.name), doc.bytes);
  await writeFile(join(work, 'barcodes.csv'), generated.barcodesCsv);
  tariff([
    'build',
    '--source',
    join(work, 'input'),
    '--barcodes',
    join(work, 'barcodes.csv'),
    '--out',
    join(work, 'release'),
    '--date',
    '2026-11-22',
  ]);
  tariff(['publish', join(work, 'release')]);

  serve = spawn(process.execPath, [CLI, 'serve', '--data-dir', dataDir, '--host', '127.0.0.1', '--port', '0'], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('tariff serve did not start')), 30_000);
    createInterface({ input: serve!.stdout! }).on('line', (line) => {
      const entry = JSON.parse(line) as { event?: string; url?: string };
      if (entry.event === 'service.listening') {
        clearTimeout(timer);
        resolve(entry.url!);
      }
    });
  });
  const api = `${url}/v1`;

  let accounts = 0;
  /** A fresh account per measurement: the read quota (10 a day) belongs to the account. */
  const keyFile = async () => {
    const email = `bench${(accounts += 1)}@example.org`;
    tariff(['accounts', 'create', email, '--type', 'User']);
    const file = join(work, `${email}.key`);
    await writeFile(file, JSON.parse(tariff(['keys', 'create', email, '--json'])).key, { mode: 0o600 });
    return file;
  };
  const sync = (format: string, dest: string, key: string) => {
    const start = performance.now();
    const child = spawn(process.execPath, [CLI, 'sync', '--api', api, '--format', format, '--dest', dest, '--key-file', key, '--json'], {
      env: { ...process.env, NODE_OPTIONS: `--require ${PRELOAD}` },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    return new Promise<{ ms: number; rssMb: number; reads: number; status: string; bytes: number }>((resolve, reject) => {
      child.on('exit', (code) => {
        if (code !== 0) return reject(new Error(`tariff sync exited ${code}: ${stderr}`));
        const result = JSON.parse(stdout);
        resolve({
          ms: performance.now() - start,
          rssMb: Number(/bench-maxrss-kb (\d+)/.exec(stderr)![1]) / 1024,
          reads: result.reads,
          status: result.status,
          bytes: result.bytes,
        });
      });
    });
  };
  const curl = (path: string, key: string) => {
    const start = performance.now();
    execFileSync('curl', [
      '-sSf',
      '-o',
      join(work, 'curl.out'),
      '-H',
      `X-Api-Key: ${execFileSync('cat', [key], { encoding: 'utf8' }).trim()}`,
      `${api}${path}`,
    ]);
    return performance.now() - start;
  };

  const rows: Record<string, number[]> = {};
  const add = (name: string, value: number) => (rows[name] ??= []).push(value);
  console.log(
    `bench:sync: ${generated.documents.length} lists, 10,000 products, 100,000 barcodes, ${RUNS} runs side by side (fresh process each)`,
  );
  for (let run = 0; run < RUNS; run++) {
    for (const format of ['sqlite', 'json', 'docdb']) {
      const dest = join(work, `dest-${run}-${format}`);
      const key = await keyFile();
      const full = await sync(format, dest, key);
      if (full.status !== 'updated' || full.reads !== 2) throw new Error(`unexpected full sync: ${JSON.stringify(full)}`);
      add(`full ${format} ms`, full.ms);
      add(`full ${format} MB`, full.rssMb);
      add(`full ${format} KiB`, full.bytes / 1024);
      if (format === 'sqlite') {
        const noop = await sync(format, dest, key);
        if (noop.status !== 'current' || noop.reads !== 1) throw new Error(`unexpected no-op sync: ${JSON.stringify(noop)}`);
        add('no-op ms', noop.ms);
        add('no-op MB', noop.rssMb);
        add('no-op reads', noop.reads);
      }
    }
    const key = await keyFile();
    const bareStart = performance.now();
    execFileSync(process.execPath, ['-e', '0']);
    add('bare node ms', performance.now() - bareStart);
    add('curl /version ms', curl('/version', key));
    add('curl sqlite file ms', curl('/dataset.sqlite.gz', key));
    console.log(
      `  run ${run + 1}: full sqlite ${rows['full sqlite ms']!.at(-1)!.toFixed(0)} ms, no-op ${rows['no-op ms']!.at(-1)!.toFixed(0)} ms, curl file ${rows['curl sqlite file ms']!.at(-1)!.toFixed(0)} ms`,
    );
  }
  console.log('');
  console.log(
    `  no-op sync (one /version call)   ${summary(rows['no-op ms']!, 'ms')}, reads spent ${median(rows['no-op reads']!)}, peak RSS ${summary(rows['no-op MB']!, 'MB')}`,
  );
  console.log(`  curl /v1/version (transfer only) ${summary(rows['curl /version ms']!, 'ms', 1)}`);
  for (const format of ['sqlite', 'json', 'docdb']) {
    console.log(
      `  full sync ${format.padEnd(6)} (${median(rows[`full ${format} KiB`]!).toFixed(0)} KiB)  ${summary(rows[`full ${format} ms`]!, 'ms')}, peak RSS ${summary(rows[`full ${format} MB`]!, 'MB')}`,
    );
  }
  console.log(`  curl dataset.sqlite.gz (transfer only) ${summary(rows['curl sqlite file ms']!, 'ms', 1)}`);
  const reference = `bare node ${median(rows['bare node ms']!).toFixed(0)} ms, curl of /version ${median(rows['curl /version ms']!).toFixed(0)} ms`;
  reportGoal({ what: 'tariff sync with nothing new', unit: 'ms', runs: rows['no-op ms']!, reference, goal: 100 });
  const file = `curl of the file ${median(rows['curl sqlite file ms']!).toFixed(0)} ms`;
  reportGoal({ what: 'full sync, docdb', unit: 'ms', runs: rows['full docdb ms']!, reference: file, goal: 700 });
  reportGoal({ what: 'full sync, json', unit: 'ms', runs: rows['full json ms']!, reference: file, goal: 450 });
  reportGoal({ what: 'full sync, sqlite', unit: 'ms', runs: rows['full sqlite ms']!, reference: file, goal: 450 });
} finally {
  serve?.kill('SIGTERM');
  await rm(work, { recursive: true, force: true });
}
