// npm run bench:registry-backup: `tariff registry backup` and `tariff registry restore` of a
// registry holding 60,000 accounts, 100,000 barcodes and 500,000 submissions (votes), as real
// processes, three runs each side by side, the backups encrypted (age) for a key made by
// `tariff registry backup-key create` and restored with it: on SQLite, and on PostgreSQL when
// TARIFF_TEST_POSTGRES_URL names a database (a schema of its own, dropped after). Prints median
// and range of the wall time, the backup's size, and each command's peak memory (docs/operations.md,
// "Losing a machine").
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { gs1CheckDigit } from '../src/gs1/gtin.ts';
import { generateApiKey } from '../src/registry/api-key.ts';
import pg from 'pg';
import { openPgRegistry, openSqliteRegistry } from '../src/registry/open-registry.ts';
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
function timed(args: string[], env: Record<string, string> = {}): { seconds: number; peakMb: number; stdout: string } {
  const start = performance.now();
  const run = spawnSync(process.execPath, [CLI, ...args], {
    encoding: 'utf8',
    env: { ...process.env, ...env, NODE_OPTIONS: `--require=${PRELOAD}` },
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

/** The backups and restores of one registry, side by side, printed. */
function drill(engine: string, dataDirOf: (run: number) => string, env: Record<string, string>) {
  const backups = Array.from({ length: RUNS }, () => timed(['registry', 'backup', '--json', '--data-dir', dataDirOf(0)], env));
  const size = JSON.parse(backups.at(-1)!.stdout).record.size as number;
  const restores = Array.from({ length: RUNS }, (_, i) =>
    timed(['registry', 'restore', 'latest', '--force', '--data-dir', dataDirOf(i + 1)], env),
  );
  const line = (what: string, runs: { seconds: number; peakMb: number }[]) =>
    `${engine} ${what}: ${summary(
      runs.map((run) => run.seconds),
      's',
    )}; peak ${summary(
      runs.map((run) => run.peakMb),
      'MB',
      0,
    )}`;
  console.log(`${line('backup', backups)}; ${(size / 1048576).toFixed(1)} MB encrypted`);
  console.log(line('restore', restores));
}

const work = await mkdtemp(join(tmpdir(), 'tariff-bench-backup-'));
try {
  // The key: the recipient where backups are taken, the identity where they are restored.
  const identity = join(work, 'backups.age');
  const recipient = JSON.parse(timed(['registry', 'backup-key', 'create', identity, '--json']).stdout).recipient as string;
  const keys = { TARIFF_BACKUP_RECIPIENTS: recipient, TARIFF_BACKUP_IDENTITY: identity };
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

  // The bucket on another disk than the data dir in real life: here another folder, outside it.
  drill('sqlite', (run) => (run === 0 ? dataDir : join(work, `restored-${run}`)), { ...keys, TARIFF_BUCKET: join(work, 'bucket') });

  const postgres = process.env.TARIFF_TEST_POSTGRES_URL;
  if (postgres) {
    const schema = `bench_backup_${process.pid}`;
    const url = `${postgres}${postgres.includes('?') ? '&' : '?'}schema=${schema}`;
    await (await openPgRegistry(url, { rules: DEFAULT_RULES, poolSize: 1 })).close();
    const client = new pg.Client({ connectionString: postgres });
    await client.connect();
    try {
      const pgSeed = performance.now();
      await client.query(`SET search_path = ${schema}`);
      await client.query(`INSERT INTO accounts (email, type, submit_limit, created_at, vetted_at)
        SELECT 'account' || i || '@example.it', 'User', 100, now()::text, now()::text FROM generate_series(0, ${ACCOUNTS - 1}) i`);
      await client.query(`INSERT INTO api_keys (account_id, fingerprint, prefix, label, created_at)
        SELECT id, md5(random()::text) || md5(id::text), 'ttd_' || substr(md5(id::text), 1, 8), 'till', now()::text FROM accounts`);
      await client.query(`INSERT INTO barcodes (gtin, status, adm_code, kind, units, updated_at)
        SELECT lpad('80' || lpad(i::text, 10, '0') || '0', 14, '0'), 'approved', 10000 + i % 10000, 'pack', 1, now()::text
        FROM generate_series(0, ${BARCODES - 1}) i`);
      await client.query(`INSERT INTO votes (gtin, account_id, adm_code, kind, units, barcode_as_sent, submitted_at)
        SELECT lpad('80' || lpad((v % ${BARCODES})::text, 10, '0') || '0', 14, '0'),
          1 + ((v / ${BARCODES}) * 10007 + v % ${BARCODES}) % ${ACCOUNTS}, 10000 + (v % ${BARCODES}) % 10000, 'pack', 1, 'x', now()::text
        FROM generate_series(0, ${SUBMISSIONS - 1}) v ON CONFLICT DO NOTHING`);
      console.log(`postgres: the same registry seeded in ${((performance.now() - pgSeed) / 1000).toFixed(1)} s`);
    } finally {
      await client.end();
    }
    try {
      // No session of the bench's own stays open: a restore refuses (or, forced, ends) other sessions.
      const pgData = join(work, 'pg');
      drill('postgres', () => pgData, { ...keys, TARIFF_BUCKET: join(work, 'pg-bucket'), TARIFF_REGISTRY: url });
    } finally {
      const cleaner = new pg.Client({ connectionString: postgres });
      await cleaner.connect();
      await cleaner.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await cleaner.end();
    }
  } else console.log('postgres: not measured (TARIFF_TEST_POSTGRES_URL is not set; export $(bash scripts/start-postgres.sh) into it)');
} finally {
  await rm(work, { recursive: true, force: true });
}
