import { readdirSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { collectGarbage } from '../../src/pipeline/bucket-garbage.ts';
import { readMarks } from '../../src/storage/deferred-deletions.ts';
import { LocalBucket } from '../../src/storage/local-bucket.ts';
import { tempDir } from '../helpers/temp-dir.ts';

/** What a folder bucket's own writes promise (docs/architecture.md, "Every bucket write"), without a lock or a clock. */
describe('a folder bucket’s writes', () => {
  it('creates an object once: a second create of the name, with any bytes, is refused and changes nothing', async () => {
    const bucket = new LocalBucket(await tempDir());
    expect(await bucket.create('releases/20261101.1/dataset.json.gz', Buffer.from('first'), 'application/gzip')).toBe('written');
    expect(await bucket.create('releases/20261101.1/dataset.json.gz', Buffer.from('second'), 'application/gzip')).toBe('exists');
    expect((await bucket.get('releases/20261101.1/dataset.json.gz'))!.toString()).toBe('first');
    // No temporary is left beside it, win or lose.
    expect(readdirSync(join(bucket.root, 'releases/20261101.1'))).toEqual(['dataset.json.gz']);
  });

  it('swaps a pointer by generations: a late writer with the tag it read long ago is refused, whatever happened meanwhile', async () => {
    const bucket = new LocalBucket(await tempDir());
    expect(await bucket.putIfUnchanged('current.json', Buffer.from('1'), 'application/json', null)).toBe('written');
    const stale = (await bucket.getTagged('current.json'))!.tag;
    // Other writers move it on, past the generations kept, and delete it (a tombstone) and create it again.
    let tag = stale;
    for (let n = 2; n <= 80; n += 1) {
      expect(await bucket.putIfUnchanged('current.json', Buffer.from(String(n)), 'application/json', tag)).toBe('written');
      tag = (await bucket.getTagged('current.json'))!.tag;
    }
    await bucket.delete(['current.json']);
    expect(await bucket.get('current.json')).toBeNull();
    expect(await bucket.list('')).toEqual([]);
    expect(await bucket.putIfUnchanged('current.json', Buffer.from('81'), 'application/json', null)).toBe('written');
    // The writer paused since generation 1 wakes up: refused, and the pointer is still the newest.
    expect(await bucket.putIfUnchanged('current.json', Buffer.from('stale'), 'application/json', stale)).toBe('conflict');
    expect((await bucket.get('current.json'))!.toString()).toBe('81');
    expect(await bucket.list('')).toEqual(['current.json']);
    // Old generations are removed as new ones come: a bounded folder.
    expect(readdirSync(join(bucket.root, 'current.json.gen')).length).toBeLessThanOrEqual(65);
  });

  it('a generation created again after its removal (a writer paused across 64 others) is taken back and refused', async () => {
    const bucket = new LocalBucket(await tempDir());
    await bucket.putIfUnchanged('keys.json', Buffer.from('0'), 'application/json', null);
    for (let n = 1; n <= 70; n += 1) {
      const { tag } = (await bucket.getTagged('keys.json'))!;
      await bucket.putIfUnchanged('keys.json', Buffer.from(String(n)), 'application/json', tag);
    }
    // Generation 2 is long gone: a writer that read generation 1 would create it again. Simulated by the
    // folder as such a writer sees it: generation 1's tag is what it expects.
    const read = vi.spyOn(bucket as unknown as { state: (key: string) => Promise<unknown> }, 'state');
    read.mockResolvedValueOnce({ generation: 1, object: { bytes: Buffer.from('0'), tag: '"g000000000001"' }, plain: false });
    expect(await bucket.putIfUnchanged('keys.json', Buffer.from('late'), 'application/json', '"g000000000001"')).toBe('conflict');
    read.mockRestore();
    expect((await bucket.get('keys.json'))!.toString()).toBe('70');
    expect(readdirSync(join(bucket.root, 'keys.json.gen'))).not.toContain('000000000002');
  });

  it('two writers racing 50 rounds of compare-and-swap, their clocks 5 minutes apart: every swap counted once, none lost, no wait', async () => {
    const folder = await tempDir();
    const writers = [new LocalBucket(folder), new LocalBucket(folder)];
    await writers[0]!.putIfUnchanged('history/manifest.json', Buffer.from('0'), 'application/json', null);
    let won = 0;
    const race = async (bucket: LocalBucket, skewMs: number) => {
      for (let round = 0; round < 50; round += 1) {
        // Each writer's clock is its own: nothing in the swap reads one.
        vi.setSystemTime(Date.now() + skewMs);
        const { bytes, tag } = (await bucket.getTagged('history/manifest.json'))!;
        const next = Buffer.from(String(Number(bytes.toString()) + 1));
        if ((await bucket.putIfUnchanged('history/manifest.json', next, 'application/json', tag)) === 'written') won += 1;
      }
    };
    await Promise.all([race(writers[0]!, 5 * 60_000), race(writers[1]!, -5 * 60_000)]);
    vi.useRealTimers();
    expect(Number((await writers[0]!.get('history/manifest.json'))!.toString())).toBe(won);
    expect(won).toBeGreaterThanOrEqual(50);
  });
});

describe('deferred deletion', () => {
  it('marks what nothing names, deletes it only a retention later by the store’s clock, and drops a mark once a pointer names it again', async () => {
    const bucket = new LocalBucket(await tempDir());
    const day = 24 * 3_600_000;
    await bucket.create('sources/' + 'a'.repeat(64) + '.pdf', Buffer.from('old list'), 'application/pdf');
    // Every time compared is the store's (as a writer takes it from its lease's object): the mark's own.
    const first = await collectGarbage(bucket, { storeNow: new Date(0), retentionMs: day, by: 'test', keep: 1 });
    expect(first).toEqual({ marked: [`sources/${'a'.repeat(64)}.pdf`], removed: [], kept: [] });
    const now = (await bucket.modified((await readMarks(bucket))[0]!.key))!;
    // Within the retention: kept, whoever runs.
    expect(
      await collectGarbage(bucket, { storeNow: new Date(now.getTime() + day - 60_000), retentionMs: day, by: 'test', keep: 1 }),
    ).toEqual({
      marked: [],
      removed: [],
      kept: [],
    });
    // The mark's age is the store's: the file's time, set back two days as if written then.
    const [mark] = await readMarks(bucket);
    const twoDaysAgo = new Date(now.getTime() - 2 * day);
    utimesSync(join(bucket.root, mark!.key), twoDaysAgo, twoDaysAgo);
    const due = await collectGarbage(bucket, { storeNow: now, retentionMs: day, by: 'test', keep: 1 });
    expect(due.removed).toEqual([`sources/${'a'.repeat(64)}.pdf`]);
    expect(await bucket.list('')).toEqual([]);
  });
});
