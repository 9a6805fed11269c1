import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Dataset } from '../../src/dataset/model.ts';
import { headOfHistory } from '../../src/history/history-log.ts';
import { writeHistory } from '../../src/history/history-store.ts';
import { emptyHistory, listObservations, recordObservations } from '../../src/history/price-history.ts';
import { releaseFileKey } from '../../src/publish/bucket-layout.ts';
import { renderDatasetJson } from '../../src/release/dataset-json.ts';
import { gzipDeterministic } from '../../src/release/gzip.ts';
import { LocalBucket } from '../../src/storage/local-bucket.ts';
import { buildCatalogue } from '../../src/web/catalogue/build-catalogue.ts';
import { CatalogueSource } from '../../src/web/catalogue/catalogue-source.ts';
import { productPage } from '../../src/web/catalogue/catalogue-pages.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import { waitFor } from '../helpers/wait-for.ts';

const dataset = (version: string, name: string): Dataset => ({
  schemaVersion: 2,
  version,
  tariffDate: '2026-11-01',
  source: 'ADM',
  changesSince: null,
  products: [
    {
      admCode: 1001,
      name,
      category: 'cigarettes',
      pack: 'astuccio da 20 pezzi',
      packQuantity: 20,
      packUnit: 'pieces',
      pricePerKgCents: null,
      pricePerPackCents: 600,
      effectiveFrom: '2026-11-01',
      referencePriceCents: null,
      referenceUnit: null,
    },
  ],
  barcodes: [],
  changes: [],
  announced: [],
});

/** A bucket holding releases' json files and a history, and a source over it with a clock the test moves. */
async function setUp() {
  const dir = await tempDir();
  const bucket = new LocalBucket(join(dir, 'bucket'));
  const put = (rows: Dataset) => bucket.put(releaseFileKey(rows.version, 'json'), gzipDeterministic(renderDatasetJson(rows)));
  let served: string | null = null;
  let now = 0;
  const log: Record<string, unknown>[] = [];
  const source = new CatalogueSource(bucket, {
    served: () => served,
    refreshMs: 60_000,
    deadlineMs: 10_000,
    cacheDir: join(dir, 'cache'),
    log: (e) => void log.push(e),
    now: () => now,
  });
  return { dir, bucket, put, source, log, serve: (version: string) => (served = version), wait: (ms: number) => (now += ms) };
}

describe('CatalogueSource', () => {
  it('reads a release’s rows when a page first asks, and builds one index per release and history', async () => {
    const { bucket, put, source, serve, wait } = await setUp();
    expect((await source.index()).size).toBe(0);
    await put(dataset('20261101.1', 'AURORA ROSSA'));
    serve('20261101.1');
    const first = await source.index();
    expect(first.entry(1001)?.name).toBe('AURORA ROSSA');
    expect(await source.index()).toBe(first);

    // A history written meanwhile is seen once the refresh interval has passed, not before.
    const archived = recordObservations(
      emptyHistory(),
      listObservations([dataset('x', 'AURORA ROSSA').products[0]!], '2023-10-10', 'old.pdf'),
    );
    await writeHistory(bucket, archived, headOfHistory(archived), { manifest: null }, []);
    expect((await source.index()).entry(1001)?.history).toBeNull();
    wait(60_000);
    // Due: a page starts the read (and gives it a moment); once it is done, the pages have it: a
    // page gives the new catalogue a moment only, so the test waits for the pages to show it (on a
    // busy machine a moment is not enough), polling them as visitors would.
    await source.index();
    await source.refreshHistory();
    await waitFor(async () => (await source.index()).entry(1001)?.history !== null, 'the pages to show the history', 60_000);
    expect((await source.index()).entry(1001)?.history?.steps[0]).toMatchObject({ from: '2023-10-10', source: 'old.pdf' });

    await put(dataset('20261201.1', 'AURORA ROSSA NUOVA'));
    serve('20261201.1');
    // A new release's rows are read for the next pages (given a moment by this one).
    await source.index();
    await source.settled();
    await waitFor(async () => (await source.index()).entry(1001)?.name !== 'AURORA ROSSA', 'the pages to show the new release', 60_000);
    expect((await source.index()).entry(1001)?.name).toBe('AURORA ROSSA NUOVA');
  });

  it('keeps the last index when the release’s rows cannot be read, and says so', async () => {
    const { put, source, log, serve } = await setUp();
    await put(dataset('20261101.1', 'AURORA ROSSA'));
    serve('20261101.1');
    const kept = await source.index();
    serve('20261201.1');
    expect(await source.index()).toBe(kept);
    await source.settled();
    expect(await source.index()).toBe(kept);
    // Not read again on every page: once, then after a while.
    for (let i = 0; i < 5; i += 1) await source.index();
    await source.settled();
    expect(log).toEqual([expect.objectContaining({ event: 'catalogue.release_read_failed', version: '20261201.1' })]);
  });

  it('answers from the last history while its read fails, is stale once that lasts, and takes the history again once it reads', async () => {
    const { bucket, put, source, serve, wait, log } = await setUp();
    await put(dataset('20261101.1', 'AURORA ROSSA'));
    serve('20261101.1');
    const old = recordObservations(emptyHistory(), listObservations([dataset('x', 'AURORA ROSSA').products[0]!], '2023-10-10', 'old.pdf'));
    await writeHistory(bucket, old, headOfHistory(old), { manifest: null }, []);
    expect((await source.index()).entry(1001)?.history?.steps).toHaveLength(1);

    // The history's manifest (its newest generation in a folder bucket) becomes a FIFO: a read of it would block for good.
    const manifest = join(bucket.root, 'history/manifest.json.gen/000000000001');
    const saved = readFileSync(manifest);
    rmSync(manifest);
    execFileSync('mkfifo', [manifest]);
    wait(60_000);
    expect((await source.index()).entry(1001)?.history?.steps).toHaveLength(1);
    await source.refreshHistory();
    expect(log).toContainEqual(
      expect.objectContaining({ event: 'catalogue.history_read_failed', error: expect.stringContaining('is a FIFO, not an object') }),
    );
    expect((await source.index()).entry(1001)?.history?.steps).toHaveLength(1);
    expect(source.health(600_000)).toMatchObject({ read: 'history', stale: false, problem: expect.stringContaining('a FIFO') });
    wait(600_001);
    expect(source.health(600_000)).toMatchObject({ stale: true });

    // Readable again, with a newer list in it: taken at the next read.
    rmSync(manifest);
    writeFileSync(manifest, saved);
    const newer = recordObservations(
      old,
      listObservations([{ ...dataset('x', 'AURORA ROSSA').products[0]!, pricePerPackCents: 650 }], '2024-10-10', 'new.pdf'),
    );
    await writeHistory(bucket, newer, headOfHistory(newer), { manifest: (await bucket.getTagged('history/manifest.json'))!.tag }, []);
    await source.refreshHistory();
    // A page waits a moment for the new catalogue, then answers from the last one: the test waits for it to be in.
    await source.index();
    await source.settled();
    expect((await source.index()).entry(1001)?.history?.steps).toHaveLength(2);
    expect(source.health(600_000)).toMatchObject({ stale: false, problem: null, failingSince: null });
  });
  it('a history unreadable from the start is read once per backoff step, and the pages say it is unavailable', async () => {
    const { bucket, put, source, serve, wait, log } = await setUp();
    await put(dataset('20261101.1', 'AURORA ROSSA'));
    serve('20261101.1');
    // The history's manifest cannot be read (a folder where the file should be): every read fails.
    mkdirSync(join(bucket.root, 'history', 'manifest.json'), { recursive: true });
    for (let request = 0; request < 50; request += 1) {
      const index = await source.index();
      expect(index.historyUnavailable).toBe(true);
      expect(index.entry(1001)?.name).toBe('AURORA ROSSA');
      wait(100);
    }
    // 50 requests over 5 s: the first read, then the backoff's (5 s): one more at most.
    const reads = log.filter((entry) => entry.event === 'catalogue.history_read_failed').length;
    expect(reads).toBeGreaterThanOrEqual(1);
    expect(reads).toBeLessThanOrEqual(2);
    const entry = (await source.index()).entry(1001)!;
    const page = productPage(entry, '2026-11-01', false, true);
    expect(page).toContain('Storico dei prezzi non disponibile ora');
    expect(page).not.toContain('Nessuno storico dei prezzi');
    expect(page).toContain('6,00');

    // Readable again: once the backoff is over, the pages have it, and say nothing of it missing.
    rmSync(join(bucket.root, 'history'), { recursive: true });
    const archived = recordObservations(
      emptyHistory(),
      listObservations([dataset('x', 'AURORA ROSSA').products[0]!], '2023-10-10', 'old.pdf'),
    );
    await writeHistory(bucket, archived, headOfHistory(archived), { manifest: null }, []);
    wait(60_000);
    await source.index();
    await source.refreshHistory();
    // The pages give a new catalogue a moment only: waited for, as a visitor's next pages would.
    await waitFor(async () => !(await source.index()).historyUnavailable, 'the pages to have the history', 60_000);
    const back = await source.index();
    expect(back.historyUnavailable).toBe(false);
    expect(back.entry(1001)?.history?.steps[0]).toMatchObject({ from: '2023-10-10' });
  });

  it('builds each catalogue in a process of its own, and leaves no file of it behind once open', async () => {
    const { dir, put, source, serve } = await setUp();
    await put(dataset('20261101.1', 'AURORA ROSSA'));
    serve('20261101.1');
    expect((await source.index()).entry(1001)?.name).toBe('AURORA ROSSA');
    // The database is open and unlinked: nothing under the cache folder, whatever happens to the process.
    expect(readdirSync(join(dir, 'cache'))).toEqual([]);
  });

  it('keeps the last index when a history whose digest matches its manifest does not parse, and says so once', async () => {
    const { bucket, put, source, serve, wait, log } = await setUp();
    await put(dataset('20261101.1', 'AURORA ROSSA'));
    serve('20261101.1');
    const kept = await source.index();
    // Written by a broken writer: the file and its manifest agree, but it holds no history.
    const file = gzipDeterministic(Buffer.from('{"schemaVersion":2,"products":"none"}'));
    await bucket.put('history/history.json.gz', file);
    const sha256 = createHash('sha256').update(file).digest('hex');
    await bucket.put(
      'history/manifest.json',
      Buffer.from(JSON.stringify({ file: 'history.json.gz', sha256, size: file.length, release: null, products: 0 })),
    );
    wait(60_000);
    await source.index();
    await source.refreshHistory();
    expect(await source.index()).toBe(kept);
    await source.settled();
    expect(await source.index()).toBe(kept);
    expect(log.filter((entry) => entry.event === 'catalogue.build_failed')).toEqual([
      expect.objectContaining({
        version: '20261101.1',
        error: expect.stringContaining('history/history.json.gz: not a readable price history'),
      }),
    ]);
  });

  it('ends a builder still at work past its deadline, and says so', async () => {
    const { dir } = await setUp();
    const path = join(dir, 'never.sqlite');
    const job = { release: null, releaseWhere: '', history: null, historyWhere: '', path };
    // No process starts, reads and writes within a millisecond.
    await expect(buildCatalogue(job, { deadlineMs: 1 })).rejects.toThrow('still at work after');
    expect(readdirSync(dir)).not.toContain('never.sqlite');
  });

  it('names the cache folder it cannot write, and answers with an empty catalogue rather than an error', async () => {
    const dir = await tempDir();
    const bucket = new LocalBucket(join(dir, 'bucket'));
    await bucket.put(releaseFileKey('20261101.1', 'json'), gzipDeterministic(renderDatasetJson(dataset('20261101.1', 'AURORA ROSSA'))));
    // A file where the folder should be: nothing can be made under it, whoever runs the test.
    writeFileSync(join(dir, 'not-a-folder'), '');
    const log: Record<string, unknown>[] = [];
    const cacheDir = join(dir, 'not-a-folder', 'cache');
    const source = new CatalogueSource(bucket, {
      served: () => '20261101.1',
      refreshMs: 60_000,
      deadlineMs: 10_000,
      cacheDir,
      log: (e) => void log.push(e),
    });
    expect((await source.index()).size).toBe(0);
    expect(log).toContainEqual(expect.objectContaining({ event: 'catalogue.build_failed', error: expect.stringContaining(cacheDir) }));
  });
});
