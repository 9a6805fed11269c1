// npm run bench:registry-backup: `tariff registry backup` and `tariff registry restore` of a
// SQLite registry holding 60,000 accounts, 100,000 barcodes and 500,000 submissions (votes), as
// real processes, three runs each side by side. Prints median and range of the wall time, the
// backup's size, and each command's peak memory (docs/operations.md, "Losing a machine").
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { gs1CheckDigit } from '../src/gs1/gtin.ts';
import { generateApiKey } from '../src/registry/api-key.ts';
import { openSqliteRegistry } from '../src/registry/open-registry.ts';
import { DEFAULT_RULES } from '../src/barcodes/load-rules.ts';

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const ACCOUNTS = 60_000;
const BARCODES = 100_000;
const SUBMISSIONS = 500_000;
const CLI = fileURLToPath(new URL('../bin/tariff.js', import.meta.url));
const PRELOAD = fileURLToPath(new URL('./report-maxrss.cjs', import.meta.url));
const gtin = (n: number) => {
  const body = `80${String(n).padStart(10, '0')}`;
  return (body + gs1CheckDigit(body)).padStart(14, '0');
};

/** Runs `tariff args`; its wall time in seconds and peak memory in MB. */
function timed(args: string[]): { seconds: number; peakMb: number; stdout: string } {
  const start = performance.now();
  const run = spawnSync(process.execPath, [CLI, ...args], {
    encoding: 'utf8',
    env: { ...process.env, NODE_OPTIONS: `--require=${PRELOAD}` },
  });
  const seconds = (performance.now() - start) / 1000;
  if (run.status !== 0) throw new Error(`tariff ${args.join(' ')}: ${run.stderr}`);
  const kb = Number(/bench-maxrss-kb (\d+)/.exec(run.stderr)?.[1] ?? 0);
  return { seconds, peakMb: kb / 1024, stdout: run.stdout };
}

const summary = (values: number[], unit: string, digits = 2) => {
  const sorted = [...values].sort((a, b) => a - b);
  return `median ${sorted[Math.floor(sorted.length / 2)]!.toFixed(digits)} ${unit} (range ${sorted[0]!.toFixed(digits)}–${sorted.at(-1)!.toFixed(digits)})`;
};

const work = await mkdtemp(join(tmpdir(), 'tariff-bench-backup-'));
try {
  const dataDir = join(work, 'var');
  const path = join(dataDir, 'registry.sqlite');
  await (await openSqliteRegistry(path, { rules: DEFAULT_RULES })).close();
  const seedStart = performance.now();
  const db = new Database(path);
  const at = new Date().toISOString();
  db.transaction(() => {
    const account = db.prepare("INSERT INTO accounts (email, type, submit_limit, created_at, vetted_at) VALUES (?, 'User', 100, ?, ?)");
    for (let i = 0; i < ACCOUNTS; i++) account.run(`account${i}@example.it`, at, at);
    const key = db.prepare('INSERT INTO api_keys (account_id, fingerprint, prefix, label, created_at) VALUES (?, ?, ?, ?, ?)');
    for (let i = 0; i < ACCOUNTS; i++) {
      const generated = generateApiKey();
      key.run(i + 1, generated.fingerprint, generated.displayPrefix, 'till', at);
    }
    const barcode = db.prepare(
      "INSERT INTO barcodes (gtin, status, adm_code, kind, units, updated_at) VALUES (?, 'approved', ?, 'pack', 1, ?)",
    );
    for (let i = 0; i < BARCODES; i++) barcode.run(gtin(i), 10_000 + (i % 10_000), at);
    const vote = db.prepare(
      "INSERT INTO votes (gtin, account_id, adm_code, kind, units, barcode_as_sent, submitted_at) VALUES (?, ?, ?, 'pack', 1, ?, ?)",
    );
    for (let v = 0; v < SUBMISSIONS; v++) {
      const b = v % BARCODES;
      vote.run(gtin(b), 1 + ((Math.floor(v / BARCODES) * 10_007 + b) % ACCOUNTS), 10_000 + (b % 10_000), gtin(b), at);
    }
  })();
  db.close();
  console.log(
    `registry: ${ACCOUNTS} accounts and keys, ${BARCODES} barcodes, ${SUBMISSIONS} submissions (seeded in ${((performance.now() - seedStart) / 1000).toFixed(1)} s)`,
  );

  const backups = Array.from({ length: RUNS }, () => timed(['registry', 'backup', '--json', '--data-dir', dataDir]));
  const size = JSON.parse(backups.at(-1)!.stdout).record.size as number;
  const restores = Array.from({ length: RUNS }, (_, i) =>
    timed(['registry', 'restore', 'latest', '--force', '--data-dir', join(work, `restored-${i}`), '--bucket', join(dataDir, 'bucket')]),
  );
  console.log(
    `backup:  ${summary(
      backups.map((run) => run.seconds),
      's',
    )}; peak ${summary(
      backups.map((run) => run.peakMb),
      'MB',
      0,
    )}; ${(size / 1048576).toFixed(1)} MB compressed`,
  );
  console.log(
    `restore: ${summary(
      restores.map((run) => run.seconds),
      's',
    )}; peak ${summary(
      restores.map((run) => run.peakMb),
      'MB',
      0,
    )}`,
  );
} finally {
  await rm(work, { recursive: true, force: true });
}
