import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { headOfHistory } from '../../src/history/history-log.ts';
import { renderHistory } from '../../src/history/history-file.ts';
import {
  appendReleases,
  historyFileKeys,
  readHistory,
  readHistoryManifestForUpdate,
  writeHistory,
  type HistoryManifest,
  type LogLimits,
} from '../../src/history/history-store.ts';
import { emptyHistory, listObservations, recordObservations, recordRelease } from '../../src/history/price-history.ts';
import { gzipDeterministic } from '../../src/release/gzip.ts';
import type { Bucket } from '../../src/storage/bucket.ts';
import { LocalBucket } from '../../src/storage/local-bucket.ts';
import { sha256Hex } from '../../src/util/digests.ts';
import { life } from '../helpers/history-life.ts';
import { tempDir } from '../helpers/temp-dir.ts';

/** A folder bucket that remembers the keys read from it. */
async function bucketReading(): Promise<{ bucket: Bucket; local: LocalBucket; reads: string[] }> {
  const local = new LocalBucket(join(await tempDir(), 'bucket'));
  const reads: string[] = [];
  const bucket = new Proxy(local, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if ((property === 'get' || property === 'getTagged') && typeof value === 'function')
        return (key: string) => {
          reads.push(key);
          return (value as (key: string) => Promise<unknown>).call(target, key);
        };
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { bucket, local, reads };
}

const SMALL: LogLimits = { segmentReleases: 3, segmentBytes: 1_000_000, maxSegments: 4 };

describe('the price history in the bucket, as a log', () => {
  it('reads back, after each release run, what recording each release whole gives; seals segments and folds them into a checkpoint', async () => {
    const { bucket } = await bucketReading();
    const releases = life(21, 40);
    let whole = emptyHistory();
    const seen: { segments: number; checkpoint: string | null }[] = [];
    for (let at = 0; at < releases.length; at += 2) {
      const batch = releases.slice(at, at + 2);
      const manifest = await appendReleases(bucket, await readHistoryManifestForUpdate(bucket), batch, SMALL);
      whole = batch.reduce(recordRelease, whole);
      expect((await readHistory(bucket)).history).toEqual(whole);
      expect(manifest).toMatchObject({ layout: 2, release: batch.at(-1)!.version, products: whole.products.length });
      expect(manifest.segments.length).toBeLessThanOrEqual(SMALL.maxSegments);
      expect(manifest.segments.every((s) => s.releases <= SMALL.segmentReleases)).toBe(true);
      seen.push({ segments: manifest.segments.length, checkpoint: manifest.checkpoint?.sha256 ?? null });
    }
    // The log grew, was folded into a checkpoint (no segments), and grew again from it.
    expect(seen.map((s) => s.segments)).toContain(0);
    expect(seen[0]).toEqual({ segments: 1, checkpoint: null });
    expect(new Set(seen.map((s) => s.checkpoint)).size).toBeGreaterThan(2);
  });

  it('has a release run read the manifest, the head and the open segment, never the checkpoint or a sealed segment', async () => {
    const { bucket, reads } = await bucketReading();
    const releases = life(22, 30);
    await appendReleases(bucket, await readHistoryManifestForUpdate(bucket), releases.slice(0, 10), SMALL);
    const before = (await readHistoryManifestForUpdate(bucket)).manifest!;
    // A history import's checkpoint, so that there is one to leave alone.
    const { history } = await readHistory(bucket);
    const imported = recordObservations(history, listObservations(releases[0]!.products, '2025-01-01', 'vecchio.pdf'));
    const { tag } = await readHistoryManifestForUpdate(bucket);
    await writeHistory(bucket, imported, headOfHistory(imported), { manifest: tag }, before.imports ?? []);
    await appendReleases(bucket, await readHistoryManifestForUpdate(bucket), releases.slice(10, 17), SMALL);
    const manifest = (await readHistoryManifestForUpdate(bucket)).manifest!;
    expect(manifest.segments.map((s) => s.releases)).toEqual([3, 3, 1]);
    reads.length = 0;
    await appendReleases(bucket, await readHistoryManifestForUpdate(bucket), releases.slice(17, 18), SMALL);
    const files = reads.filter((key) => key !== 'history/manifest.json' && !key.startsWith('history/.'));
    expect(files.sort()).toEqual([`history/${manifest.head!.file}`, `history/${manifest.segments[2]!.file}`].sort());
    expect((await readHistory(bucket)).history).toEqual(releases.slice(10, 18).reduce(recordRelease, imported));
  });

  it('takes over a history of layout 1 (one file, as tariff 1.0.0 wrote it): its file becomes the checkpoint', async () => {
    const { bucket, local } = await bucketReading();
    const releases = life(23, 12);
    const old = releases.slice(0, 6).reduce(recordRelease, emptyHistory());
    const file = gzipDeterministic(renderHistory(old));
    const sha256 = sha256Hex(file);
    await local.put(`history/history-${sha256}.json.gz`, file);
    await local.put(
      'history/manifest.json',
      Buffer.from(
        JSON.stringify({
          file: `history-${sha256}.json.gz`,
          sha256,
          size: file.length,
          release: old.release,
          products: old.products.length,
          imports: [],
        }),
      ),
    );
    expect((await readHistory(bucket)).history).toEqual(old);
    const manifest: HistoryManifest = await appendReleases(bucket, await readHistoryManifestForUpdate(bucket), releases.slice(6), SMALL);
    expect(manifest.layout).toBe(2);
    expect(manifest.checkpoint).toEqual({ file: `history-${sha256}.json.gz`, sha256, size: file.length });
    expect(historyFileKeys(manifest)).toContain(`history/history-${sha256}.json.gz`);
    expect((await readHistory(bucket)).history).toEqual(releases.reduce(recordRelease, emptyHistory()));
  });

  it('refuses a file that is not what its manifest names, by name', async () => {
    const { bucket, local } = await bucketReading();
    const manifest = await appendReleases(bucket, await readHistoryManifestForUpdate(bucket), life(24, 4), SMALL);
    await local.put(`history/${manifest.segments.at(-1)!.file}`, gzipDeterministic(Buffer.from('{"logVersion":1,"events":[]}')));
    await expect(readHistory(bucket)).rejects.toMatchObject({
      code: 'history_unreadable',
      message: expect.stringContaining(`history/${manifest.segments.at(-1)!.file}`),
    });
    await expect(appendReleases(bucket, await readHistoryManifestForUpdate(bucket), life(24, 5).slice(4), SMALL)).rejects.toMatchObject({
      code: 'history_unreadable',
    });
  });
});
