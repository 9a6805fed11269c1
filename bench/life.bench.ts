// npm run bench:life: the release job over a simulated life, with faked clocks. The authority (a
// stand-in on loopback, with ETag and Last-Modified) publishes every day a new list of each
// category, 2 % of the prices changed; `tariff release` runs four times a day (00:05, 06:05, 12:05,
// 18:05, Europe/Rome), each run in this process through the CLI's own `main` with its clock pinned
// (SOURCE_DATE_EPOCH). At intervals it prints the bucket, the data dir (its snapshots), the price
// history, and the publishing runs' median time. At the end it times, side by side and in turn,
// one release run on a copy of the state of the first week and one on a copy of the state at the
// end (BENCH_RUNS each, default 5): median and range of each, and their ratio.
//
// BENCH_DAYS (default 730: two years), BENCH_PRODUCTS (default 2,000), BENCH_EVERY (days between
// lines, default 30). Marked objects are deleted at the next publication (retention 0): the store's
// clock, which retention is measured on, is not one a simulation can move; with the default 24 h a
// bucket holds a day's marked releases more.
import { cp, mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { cliIo, main } from '../src/cli/main.ts';
import type { HistoryManifest } from '../src/history/history-store.ts';
import { FEED_CATEGORIES } from '../src/source/categories.ts';
import { AuthorityServer } from '../test/helpers/authority-server.ts';
import { readBucketKey } from '../test/helpers/bucket-folder.ts';
import { median } from './goal-rows.ts';

const DAYS = Number(process.env.BENCH_DAYS ?? 730);
const PRODUCTS = Number(process.env.BENCH_PRODUCTS ?? 2_000);
const EVERY = Number(process.env.BENCH_EVERY ?? 30);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const FIRST_DAY = Date.UTC(2027, 0, 1);
const RUN_HOURS_UTC = [23, 5, 11, 17]; // 00:05 … 18:05 in Rome (UTC+1 in winter; the day is Rome's either way)

const range = (values: number[], digits = 0) =>
  `median ${median(values).toFixed(digits)} (${Math.min(...values).toFixed(digits)}–${Math.max(...values).toFixed(digits)})`;
const isoDay = (day: number) => new Date(FIRST_DAY + day * 86_400_000).toISOString().slice(0, 10);
const euro = (cents: number) => `${Math.floor(cents / 100)},${String(cents % 100).padStart(2, '0')}`;

/** Day `day`'s list of `category`: every product of it, 2 % of the prices moved a cent a day since the first. */
function list(category: string, day: number): Buffer {
  const rows: string[] = [];
  FEED_CATEGORIES.forEach((name, c) => {
    if (name !== category) return;
    for (let i = c; i < PRODUCTS; i += FEED_CATEGORIES.length) {
      // Product i's price moves on the days congruent to it modulo 50: 2 % of the products a day.
      const moves = Math.floor((day + (i % 50)) / 50);
      const cents = 300 + ((i * 7919) % 1500) + moves;
      rows.push(
        `    <prodotto>\n      <codice>${10_000 + i}</codice>\n      <denominazione>PRODOTTO ${i}</denominazione>\n` +
          `      <confezione>astuccio da 20 pezzi</confezione>\n      <prezzoKgConvenzionale>${euro(cents * 50)}</prezzoKgConvenzionale>\n` +
          `      <prezzoConfezione>${euro(cents)}</prezzoConfezione>\n    </prodotto>`,
      );
    }
  });
  const xml =
    `<?xml version="1.0" encoding="ISO-8859-1"?>\n<tariffa ente="Agenzia delle Dogane e dei Monopoli" inVigoreDal="${isoDay(day)}">\n` +
    `  <categoria codice="${category}">\n${rows.join('\n')}\n  </categoria>\n</tariffa>\n`;
  return Buffer.from(xml, 'latin1');
}

/** Bytes and files under a folder (0 when it does not exist). */
async function size(dir: string, skip: (name: string) => boolean = () => false): Promise<{ bytes: number; files: number }> {
  let bytes = 0;
  let files = 0;
  const entries = await readdir(dir, { withFileTypes: true, recursive: true }).catch(() => []);
  for (const entry of entries) {
    if (!entry.isFile() || skip(join(entry.parentPath, entry.name))) continue;
    bytes += (await stat(join(entry.parentPath, entry.name))).size;
    files += 1;
  }
  return { bytes, files };
}

const sink = () =>
  new Writable({
    write(_chunk, _encoding, done) {
      done();
    },
  });

const authority = await new AuthorityServer().start();
const work = await mkdtemp(join(tmpdir(), 'tariff-bench-life-'));
const dataDir = join(work, 'var');
const env = (at: number) => ({
  ...process.env,
  NO_COLOR: '1',
  SOURCE_DATE_EPOCH: String(Math.floor(at / 1000)),
  TARIFF_SOURCE_URLS: FEED_CATEGORIES.map((category) => authority.url(`/${category}.xml`)).join(' '),
  // What a publication marks is deleted once the store's own clock (a file's mtime, S3's Last-Modified)
  // says the retention passed: a simulation cannot move that clock, so it keeps none (BENCH_RETENTION_HOURS).
  TARIFF_RETENTION_HOURS: process.env.BENCH_RETENTION_HOURS ?? '0',
});

/** One `tariff release --quiet` on `dataDir` at `at`; its time in ms, and whether it published. */
async function release(at: number, on = dataDir): Promise<{ ms: number; published: boolean }> {
  let out = '';
  const stdout = new Writable({
    write(chunk: Buffer, _encoding, done) {
      out += chunk.toString();
      done();
    },
  });
  const started = performance.now();
  const status = await main(
    [process.execPath, 'tariff', 'release', '--quiet', '--data-dir', on],
    cliIo(env(at), { stdout, stderr: sink() }),
  );
  const ms = performance.now() - started;
  if (status !== 0) throw new Error(`tariff release at ${new Date(at).toISOString()} ended ${status}`);
  return { ms, published: out.startsWith('published') };
}

const publish = (day: number) => {
  for (const category of FEED_CATEGORIES) authority.lists.set(`/${category}.xml`, { body: list(category, day), validators: true });
};

try {
  console.log(`bench:life: ${DAYS} days, 4 runs a day, ${PRODUCTS} products, 2 % of prices changed daily; ${work}`);
  console.log('day         | bucket            | data dir (no bucket) | snapshots        | history   | publishing run');
  let interval: number[] = [];
  let weekOne: string | null = null;
  for (let day = 0; day < DAYS; day += 1) {
    publish(day);
    for (const hour of RUN_HOURS_UTC) {
      const at = FIRST_DAY + day * 86_400_000 + (hour === 23 ? -3_600_000 : hour * 3_600_000) + 5 * 60_000;
      const run = await release(at);
      if (run.published) interval.push(run.ms);
    }
    if (day === 6) {
      weekOne = join(work, 'week-one');
      await cp(dataDir, weekOne, { recursive: true });
    }
    if ((day + 1) % EVERY === 0 || day === DAYS - 1) {
      const bucket = await size(join(dataDir, 'bucket'));
      const local = await size(dataDir, (path) => path.startsWith(join(dataDir, 'bucket')));
      const snapshots = await size(join(dataDir, 'snapshots'));
      const history = historyBytes();
      console.log(
        `${isoDay(day)}  | ${mb(bucket.bytes)} ${String(bucket.files).padStart(6)} obj | ${mb(local.bytes)} ${String(local.files).padStart(6)} files | ${mb(snapshots.bytes)} ${String(snapshots.files).padStart(5)} f | ${mb(history)} | ${range(interval)} ms`,
      );
      interval = [];
    }
  }
  if (weekOne) {
    // Side by side: the same next run, on a copy of each state, in turn.
    const next = FIRST_DAY + DAYS * 86_400_000 + 5 * 60_000;
    publish(DAYS);
    const early: number[] = [];
    const late: number[] = [];
    for (let i = 0; i < RUNS; i += 1) {
      for (const [state, times] of [
        [weekOne, early],
        [dataDir, late],
      ] as const) {
        const copy = join(work, `copy-${i}`);
        await cp(state, copy, { recursive: true });
        times.push((await release(next, copy)).ms);
        await rm(copy, { recursive: true, force: true });
      }
    }
    console.log(`release run on the state of the first week: ${range(early)} ms`);
    console.log(`release run on the state after ${DAYS} days:  ${range(late)} ms`);
    console.log(`ratio of medians: ${(median(late) / median(early)).toFixed(2)}`);
  }
} finally {
  await authority.close();
  if (!process.env.BENCH_KEEP) await rm(work, { recursive: true, force: true });
}

function mb(bytes: number): string {
  return `${(bytes / 1_048_576).toFixed(1).padStart(7)} MB`;
}

/** The price history's files as the bucket's manifest names them (read as the folder bucket keeps it). */
function historyBytes(): number {
  const manifest = readBucketKey(join(dataDir, 'bucket'), 'history/manifest.json');
  if (!manifest) return 0;
  const { checkpoint, base, segments, head } = JSON.parse(manifest.toString('utf8')) as HistoryManifest;
  return [checkpoint, base, ...segments, head].reduce((sum, file) => sum + (file?.size ?? 0), 0);
}
