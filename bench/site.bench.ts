// npm run bench:site: the public catalogue of `tariff serve` (one real process, local bucket) under
// a 10,000-product release with 100,000 barcodes and a price history of five steps per product.
// Each round starts a fresh process, then, one request at a time over a kept-alive connection on
// 127.0.0.1 and bounded in time: searches (words of names, codes, barcodes, misspelt and joined
// words, words matching nothing: each query different)
// and product pages with their chart (codes drawn over the whole tariff, so most are rendered,
// not answered from the page cache). Three rounds; per round the p50/p95/p99 of each, then the
// median and range of the rounds' p95 side by side. Memory: the process's resident set before the
// first catalogue page and after the load (the catalogue held in memory), and its peak.
// Targets on the 2-core reference machine: search p95 <= 20 ms, product page p95 <= 30 ms.
import { publishGeneratedRelease } from './generated-release.ts';
import { bareNodeRss, reportGoal } from './goal-rows.ts';
import { waitForUrl } from './wait-for-url.ts';
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { random } from '../fixtures/generate-tariff.ts';
import { headOfHistory } from '../src/history/history-log.ts';
import { writeHistory } from '../src/history/history-store.ts';
import { emptyHistory, listObservations, recordObservations, recordRelease } from '../src/history/price-history.ts';
import { parseDatasetJson } from '../src/release/dataset-json.ts';
import { gunzip } from '../src/release/gzip.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 6);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const PORT = 18191;
const CLI = fileURLToPath(new URL('../bin/tariff.js', import.meta.url));
const TARGETS = { search: 20, product: 30 };

const work = await mkdtemp(join(tmpdir(), 'tariff-bench-site-'));
const children: ChildProcess[] = [];
try {
  const { built, dataDir, bucket } = await publishGeneratedRelease(work, { products: 10_000, barcodes: 100_000 });
  const dataset = parseDatasetJson(gunzip(built.files.json));

  // Four older lists a year apart, each price a little lower: five steps per product with the release.
  let history = emptyHistory();
  for (const [years, factor] of [
    [4, 0.8],
    [3, 0.85],
    [2, 0.9],
    [1, 0.95],
  ] as const) {
    const date = `${2026 - years}-03-01`;
    const older = dataset.products.map((p) => ({ ...p, pricePerPackCents: Math.round(p.pricePerPackCents * factor) }));
    history = recordObservations(history, listObservations(older, date, `listino-${date}.pdf`));
  }
  history = recordRelease(history, dataset);
  await writeHistory(bucket, history, headOfHistory(history), { manifest: null }, []);

  const words = [...new Set(dataset.products.flatMap((p) => p.name.split(' ')))].filter((w) => w.length > 2);
  const next = random(7);
  const pick = <T>(items: T[]) => items[Math.floor(next() * items.length)]!;
  const long = words.filter((w) => w.length >= 5);
  /** A word as a quick typist slips: two neighbours swapped, a letter dropped or doubled, or one wrong. */
  const misspelt = (word: string) => {
    const at = 1 + Math.floor(next() * (word.length - 2));
    const slips = [
      () => word.slice(0, at) + word[at + 1]! + word[at]! + word.slice(at + 2),
      () => word.slice(0, at) + word.slice(at + 1),
      () => word.slice(0, at) + word[at]! + word.slice(at),
      () => word.slice(0, at) + 'x' + word.slice(at + 1),
    ];
    return pick(slips)();
  };
  const SEARCH_KINDS = ['code', 'barcode', 'prefix', 'two words', 'one slip', 'two slips', 'joined', 'no match'];
  // Codes, barcodes, a prefix, two words; then the forgiving kinds: a slip in one word, two slips
  // in a long one (found only as nothing is nearer), two words of a name joined, a word matching nothing.
  const searchPath = (i: number) => {
    const kind = i % SEARCH_KINDS.length;
    if (kind === 0) return `/prodotti?q=${encodeURIComponent(pick(dataset.products).admCode)}`;
    if (kind === 1) return `/prodotti?q=${pick(dataset.barcodes).barcode}`;
    const queries = [
      () => pick(words).slice(0, 4),
      () => `${pick(words)} ${pick(words).slice(0, 3)}`,
      () => misspelt(pick(long)),
      () => misspelt(misspelt(pick(long))),
      () => {
        const name = pick(dataset.products).name.split(' ');
        return name.length > 1 ? name.slice(0, 2).join('') : name[0]!;
      },
      () => `zq${pick(long).slice(2)}xw`,
    ];
    return `/prodotti?q=${encodeURIComponent(queries[kind - 2]!().toLowerCase())}`;
  };
  const productPath = () => `/prodotti/${pick(dataset.products).admCode}`;

  console.log(
    `bench:site: ${dataset.products.length} products, ${dataset.barcodes.length} barcodes, ${history.products.length} histories, ${SECONDS} s per scenario, ${ROUNDS} rounds`,
  );
  const rounds: { search: Stats & { byKind: Map<string, Stats> }; product: Stats; rss: { before: number; after: number; peak: number } }[] =
    [];
  for (let round = 1; round <= ROUNDS; round++) {
    const child = spawn(process.execPath, [CLI, 'serve', '--data-dir', dataDir, '--host', '127.0.0.1', '--port', String(PORT)], {
      stdio: ['ignore', 'ignore', 'inherit'],
      env: { ...process.env, TARIFF_PUBLIC_PAGES_PER_MINUTE: '100000000' },
    });
    children.push(child);
    await waitForUrl(`http://127.0.0.1:${PORT}/healthz`);
    const before = memory(child.pid!).rss;
    const search = await load(searchPath, (i) => SEARCH_KINDS[i % SEARCH_KINDS.length]!);
    const product = await load(productPath);
    const after = memory(child.pid!);
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
    rounds.push({ search, product, rss: { before, after: after.rss, peak: after.peak } });
    console.log(
      `round ${round}: search ${describeStats(search)} | product page ${describeStats(product)} | RSS ${mb(before)} before the catalogue, ${mb(after.rss)} after, peak ${mb(after.peak)}`,
    );
  }
  const summary = (name: 'search' | 'product') => {
    const p95 = rounds.map((r) => r[name].p95).sort((a, b) => a - b);
    const median = p95[Math.floor(p95.length / 2)]!;
    return `${name} p95 median ${median.toFixed(1)} ms (range ${p95[0]!.toFixed(1)}–${p95.at(-1)!.toFixed(1)}), target <= ${TARGETS[name]} ms: ${p95.at(-1)! <= TARGETS[name] ? 'met in every round' : median <= TARGETS[name] ? 'met in the median, not every round' : 'missed'}`;
  };
  console.log(summary('search'));
  const kindP95 = (kind: string) => {
    const p95 = rounds.map((r) => r.search.byKind.get(kind)!.p95).sort((a, b) => a - b);
    return `${kind} ${p95[Math.floor(p95.length / 2)]!.toFixed(1)} (${p95[0]!.toFixed(1)}–${p95.at(-1)!.toFixed(1)})`;
  };
  console.log(`search p95 by kind, median of the rounds (range), ms: ${SEARCH_KINDS.map(kindP95).join(', ')}`);
  console.log(summary('product'));
  const bare = `bare node ${Math.round(await bareNodeRss())} MB`;
  reportGoal({
    what: 'tariff serve RSS, catalogue loaded (10k products, 100k barcodes)',
    unit: 'MB',
    runs: rounds.map((r) => r.rss.after / 1024 / 1024),
    reference: bare,
    goal: 200,
  });
  reportGoal({ what: 'catalogue search p95', unit: 'ms', runs: rounds.map((r) => r.search.p95), reference: '—', goal: TARGETS.search });
  reportGoal({ what: 'product page p95', unit: 'ms', runs: rounds.map((r) => r.product.p95), reference: '—', goal: TARGETS.product });
} finally {
  for (const child of children) child.kill('SIGKILL');
  await rm(work, { recursive: true, force: true });
}

interface Stats {
  count: number;
  p50: number;
  p95: number;
  p99: number;
}

/**
 * One request at a time for SECONDS, each path new; the latencies' percentiles, of all and of each
 * kind of request (`kindOf`). Every answer must be a 200.
 */
async function load(
  path: (i: number) => string,
  kindOf: (i: number) => string = () => 'all',
): Promise<Stats & { byKind: Map<string, Stats> }> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const times: number[] = [];
  const byKind = new Map<string, number[]>();
  const until = performance.now() + SECONDS * 1000;
  for (let i = 0; performance.now() < until; i++) {
    const start = performance.now();
    const status = await get(agent, path(i));
    const took = performance.now() - start;
    times.push(took);
    const kind = kindOf(i);
    byKind
      .set(kind, byKind.get(kind) ?? [])
      .get(kind)!
      .push(took);
    if (status !== 200) throw new Error(`${path(i)} answered ${status}`);
  }
  agent.destroy();
  return { ...percentiles(times), byKind: new Map([...byKind].map(([kind, kindTimes]) => [kind, percentiles(kindTimes)])) };
}

function percentiles(times: number[]): Stats {
  const sorted = [...times].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  return { count: sorted.length, p50: at(0.5), p95: at(0.95), p99: at(0.99) };
}

function get(agent: Agent, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: PORT, path, agent }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.setTimeout(10_000, () => req.destroy(new Error(`${path}: no answer in 10 s`)));
    req.on('error', reject);
    req.end();
  });
}

function describeStats(s: Stats): string {
  return `${s.count} requests, p50 ${s.p50.toFixed(1)} / p95 ${s.p95.toFixed(1)} / p99 ${s.p99.toFixed(1)} ms`;
}

function mb(bytes: number): string {
  return `${Math.round(bytes / 1024 / 1024)} MB`;
}

/** The process's resident set and its peak, from /proc. */
function memory(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0) * 1024;
  return { rss: kb('VmRSS'), peak: kb('VmHWM') };
}
