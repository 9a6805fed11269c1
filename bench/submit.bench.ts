// npm run bench:submit: 500-item batches sent to POST /v1/barcodes of a real `tariff serve`
// process whose registry already holds 100,000 barcodes and 500,000 votes. Each batch mixes new
// barcodes, new votes on known ones and changed votes; it is answered only after its one
// transaction is committed with synchronous=FULL (on disk). Prints median, p90 and p99 latency.
// Target on the 2-core reference machine: median under 50 ms.
import { publishGeneratedRelease } from './generated-release.ts';
import { waitForUrl } from './wait-for-url.ts';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { gs1CheckDigit } from '../src/gs1/gtin.ts';
import { generateApiKey } from '../src/registry/api-key.ts';
import { openSqliteRegistry } from '../src/registry/open-registry.ts';
import { DEFAULT_RULES } from '../src/barcodes/load-rules.ts';

const BATCHES = Number(process.env.BENCH_BATCHES ?? 60);
const BARCODES = 100_000;
const VOTES = 500_000;
const VOTERS = 50_000;
const CLI = fileURLToPath(new URL('../bin/tariff.js', import.meta.url));
const gtin = (n: number) => {
  const body = `80${String(n).padStart(10, '0')}`;
  return body + gs1CheckDigit(body);
};

const work = await mkdtemp(join(tmpdir(), 'tariff-bench-submit-'));
let serve: ChildProcess | null = null;
try {
  const { dataDir } = await publishGeneratedRelease(work, { products: 10_000, barcodes: 0 });

  const path = join(dataDir, 'registry.sqlite');
  await (await openSqliteRegistry(path, { rules: DEFAULT_RULES })).close();
  const seedStart = performance.now();
  const db = new Database(path);
  const at = new Date().toISOString();
  const keys: string[] = [];
  db.transaction(() => {
    const account = db.prepare("INSERT INTO accounts (email, type, submit_limit, created_at) VALUES (?, 'User', 1000000, ?)");
    for (let i = 0; i < VOTERS + 20; i++) account.run(`voter${i}@example.it`, at);
    const key = db.prepare('INSERT INTO api_keys (account_id, fingerprint, prefix, label, created_at) VALUES (?, ?, ?, ?, ?)');
    for (let i = 0; i < 20; i++) {
      const generatedKey = generateApiKey();
      key.run(VOTERS + i + 1, generatedKey.fingerprint, generatedKey.displayPrefix, 'bench', at);
      keys.push(generatedKey.key);
    }
    const barcode = db.prepare(
      "INSERT INTO barcodes (gtin, status, adm_code, kind, units, updated_at) VALUES (?, 'approved', ?, 'pack', 1, ?)",
    );
    for (let i = 0; i < BARCODES; i++) barcode.run(gtin(i).padStart(14, '0'), 10_000 + (i % 10_000), at);
    const vote = db.prepare(
      "INSERT INTO votes (gtin, account_id, adm_code, kind, units, barcode_as_sent, submitted_at) VALUES (?, ?, ?, 'pack', 1, ?, ?)",
    );
    for (let v = 0; v < VOTES; v++) {
      const b = v % BARCODES;
      vote.run(gtin(b).padStart(14, '0'), 1 + Math.floor(v / BARCODES) * 10_000 + (b % 10_000), 10_000 + (b % 10_000), gtin(b), at);
    }
  })();
  db.close();
  const seeded = ((performance.now() - seedStart) / 1000).toFixed(1);

  serve = spawn(process.execPath, [CLI, 'serve', '--data-dir', dataDir, '--host', '127.0.0.1', '--port', '18191'], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  await waitForUrl('http://127.0.0.1:18191/healthz');

  const timings: number[] = [];
  for (let b = 0; b < BATCHES; b++) {
    // A third new barcodes, a third new votes on known barcodes, a third changed votes.
    const items = Array.from({ length: 500 }, (_, i) => {
      const n = (b * 500 + i) % 3 === 0 ? BARCODES + b * 500 + i : (b * 977 + i * 131) % BARCODES;
      return { barcode: gtin(n), admCode: 10_000 + ((n + (i % 3 === 2 ? 1 : 0)) % 10_000) };
    });
    const body = JSON.stringify({ items });
    const start = performance.now();
    const response = await fetch('http://127.0.0.1:18191/v1/barcodes', {
      method: 'POST',
      headers: { authorization: `Bearer ${keys[b % keys.length]}`, 'content-type': 'application/json' },
      body,
    });
    const result = (await response.json()) as { accepted: number };
    timings.push(performance.now() - start);
    if (response.status !== 200 || result.accepted === 0)
      throw new Error(`batch ${b}: HTTP ${response.status} ${JSON.stringify(result).slice(0, 200)}`);
  }
  const sorted = [...timings].sort((a, b) => a - b);
  const at_ = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  console.log(
    `bench:submit: ${BATCHES} batches of 500 items over HTTP; registry seeded with ${BARCODES} barcodes and ${VOTES} votes in ${seeded} s`,
  );
  console.log(
    `  latency: median ${at_(0.5).toFixed(1)} ms, p90 ${at_(0.9).toFixed(1)} ms, p99 ${at_(0.99).toFixed(1)} ms, min ${sorted[0]!.toFixed(1)} ms, max ${sorted.at(-1)!.toFixed(1)} ms`,
  );
  console.log(`  target: median < 50 ms → ${at_(0.5) < 50 ? 'met' : 'MISSED'} (${at_(0.5).toFixed(1)} ms)`);
} finally {
  serve?.kill('SIGTERM');
  await new Promise((resolve) => setTimeout(resolve, 300));
  await rm(work, { recursive: true, force: true });
}
