import { describe, expect, it } from 'vitest';
import { acquireBucketLease, LEASE_KEY, type LeaseOptions } from '../../src/publish/bucket-lease.ts';
import type { Bucket } from '../../src/storage/bucket.ts';
import { LocalBucket } from '../../src/storage/local-bucket.ts';
import { tempDir } from '../helpers/temp-dir.ts';

/** Two writers' options on one clock the test moves: waiting moves it too, so no test waits. */
function writers() {
  let now = Date.parse('2026-11-25T10:00:00Z');
  const options = (owner: string, pid: number, extra: Partial<LeaseOptions> = {}): LeaseOptions => ({
    owner,
    host: 'cron-1',
    pid,
    isGone: () => false,
    now: () => new Date(now),
    ttlMs: 120_000,
    waitMs: 30_000,
    sleep: async (ms) => {
      now += ms;
    },
    ...extra,
  });
  return { options, advance: (ms: number) => (now += ms) };
}

describe('the bucket writer lease', () => {
  it('keeps a second writer out, naming the first, until it lets go', async () => {
    const bucket = new LocalBucket(await tempDir());
    const { options } = writers();
    const first = await acquireBucketLease(bucket, options('tariff publish', 101));
    expect(first.warning).toBeNull();
    expect(JSON.parse((await bucket.get(LEASE_KEY))!.toString())).toMatchObject({ owner: 'tariff publish', host: 'cron-1', pid: 101 });
    await expect(acquireBucketLease(bucket, options('tariff history import', 202))).rejects.toMatchObject({
      code: 'bucket_busy',
      message: expect.stringContaining(
        'another writer holds the bucket: tariff publish (pid 101) on cron-1, since 2026-11-25T10:00:00.000Z',
      ),
    });
    await first.release();
    expect(await bucket.get(LEASE_KEY)).toBeNull();
    const second = await acquireBucketLease(bucket, options('tariff history import', 202));
    await second.release();
  });

  it('takes over a lease whose time is up, or whose holder is known to be gone, and never lets go of another’s', async () => {
    const bucket = new LocalBucket(await tempDir());
    const { options, advance } = writers();
    const dead = await acquireBucketLease(bucket, options('tariff release', 101));
    advance(121_000);
    const late = await acquireBucketLease(bucket, options('tariff publish', 202, { waitMs: 0 }));
    expect(JSON.parse((await bucket.get(LEASE_KEY))!.toString())).toMatchObject({ pid: 202 });
    // The first holder, back from a long hang, does not remove the lease that is now another's.
    await dead.release();
    expect(JSON.parse((await bucket.get(LEASE_KEY))!.toString())).toMatchObject({ pid: 202 });

    const gone = await acquireBucketLease(bucket, options('tariff rollback', 303, { waitMs: 0, isGone: (holder) => holder.pid === 202 }));
    expect(JSON.parse((await bucket.get(LEASE_KEY))!.toString())).toMatchObject({ pid: 303 });
    await late.release();
    await gone.release();
    expect(await bucket.get(LEASE_KEY)).toBeNull();
  });

  it('says when the store wrote over the lease although told not to', async () => {
    const local = new LocalBucket(await tempDir());
    // A store that ignores conditions: every conditional write is written.
    const ignoring: Bucket = Object.assign(Object.create(local) as LocalBucket, {
      putIfUnchanged: async (key: string, data: Uint8Array) => {
        await local.put(key, data);
        return 'written' as const;
      },
    });
    const lease = await acquireBucketLease(ignoring, writers().options('tariff publish', 101));
    expect(lease.warning).toMatch(/ignores conditional writes \(If-None-Match\): the writer lock cannot keep two writers apart/);
    await lease.release();
  });

  it('refuses a folder write that lost a race (compare-and-swap)', async () => {
    const bucket = new LocalBucket(await tempDir());
    expect(await bucket.putIfUnchanged('current.json', Buffer.from('a'), 'application/json', null)).toBe('written');
    expect(await bucket.putIfUnchanged('current.json', Buffer.from('b'), 'application/json', null)).toBe('conflict');
    const { tag } = (await bucket.getTagged('current.json'))!;
    expect(await bucket.putIfUnchanged('current.json', Buffer.from('b'), 'application/json', tag)).toBe('written');
    expect(await bucket.putIfUnchanged('current.json', Buffer.from('c'), 'application/json', tag)).toBe('conflict');
    expect((await bucket.get('current.json'))!.toString()).toBe('b');
  });
});
