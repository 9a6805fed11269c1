import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { acquireBucketLease, leaseHeld, LEASE_KEY, type LeaseOptions, type LeaseSighting } from '../../src/publish/bucket-lease.ts';
import { holderState, type ProcessIdentity } from '../../src/util/process-identity.ts';
import type { Bucket } from '../../src/storage/bucket.ts';
import { LocalBucket } from '../../src/storage/local-bucket.ts';
import { tempDir } from '../helpers/temp-dir.ts';

/** A process of one machine and PID namespace, as `thisProcess()` would say it. */
const identity = (pid: number, pidNamespace = 'pid:[4026531836]', boot = 'boot-a'): ProcessIdentity => ({
  boot,
  pidNamespace,
  pid,
  started: `${pid}00`,
});

/** Two writers' options, each on its own clock (skewed as a test says), both moved as either waits: no test waits. */
function writers() {
  let now = Date.parse('2026-11-25T10:00:00Z');
  const options = (owner: string, pid: number, extra: Partial<LeaseOptions> & { skewMs?: number } = {}): LeaseOptions => ({
    owner,
    host: 'cron-1',
    identity: identity(pid),
    // Nothing is provably gone unless a test says so.
    holderState: () => 'unknown',
    now: () => new Date(now + (extra.skewMs ?? 0)),
    ttlMs: 120_000,
    waitMs: 30_000,
    sleep: async (ms) => {
      now += ms;
    },
    ...extra,
  });
  return { options, advance: (ms: number) => (now += ms) };
}

const holderIn = async (bucket: Bucket) => JSON.parse((await bucket.get(LEASE_KEY))!.toString()) as { pid: number };

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
        'another writer holds the bucket: tariff publish (pid 101) on cron-1, since 2026-11-25T10:00:00.000Z by its clock',
      ),
    });
    await first.release();
    expect(leaseHeld(await bucket.get(LEASE_KEY))).toBe(false);
    const second = await acquireBucketLease(bucket, options('tariff history import', 202));
    await second.release();
  });

  it('takes over a lease seen unrenewed for its whole life on its own clock, or whose holder is provably gone, and never lets go of another’s', async () => {
    const bucket = new LocalBucket(await tempDir());
    const { options, advance } = writers();
    const dead = await acquireBucketLease(bucket, options('tariff release', 101));
    // However long ago it was written, the lease is watched for its whole life from now.
    advance(10 * 60_000);
    await expect(acquireBucketLease(bucket, options('tariff publish', 202, { waitMs: 60_000 }))).rejects.toMatchObject({
      code: 'bucket_busy',
    });
    const late = await acquireBucketLease(bucket, options('tariff publish', 202, { waitMs: 121_000 }));
    expect(await holderIn(bucket)).toMatchObject({ pid: 202 });
    // The first holder, back from a long hang, does not remove the lease that is now another's, and writes nothing more.
    await expect(dead.check()).rejects.toMatchObject({ code: 'bucket_lease_lost' });
    await dead.release();
    expect(await holderIn(bucket)).toMatchObject({ pid: 202 });

    const gone = await acquireBucketLease(
      bucket,
      options('tariff rollback', 303, { waitMs: 0, holderState: (holder) => (holder.pid === 202 ? 'gone' : 'running') }),
    );
    expect(await holderIn(bucket)).toMatchObject({ pid: 303 });
    await late.release();
    await gone.release();
    expect(leaseHeld(await bucket.get(LEASE_KEY))).toBe(false);
  });

  it('two writers whose clocks are 5 minutes apart: the one behind keeps its lease for its whole life', async () => {
    const bucket = new LocalBucket(await tempDir());
    const { options, advance } = writers();
    // A's clock is 5 minutes behind: the lease it writes "expires" 3 minutes before B's now.
    const a = await acquireBucketLease(bucket, options('tariff release', 101, { skewMs: -5 * 60_000 }));
    advance(60_000);
    await expect(acquireBucketLease(bucket, options('tariff rollback', 202, { waitMs: 30_000 }))).rejects.toMatchObject({
      code: 'bucket_busy',
    });
    await a.check();
    expect(await holderIn(bucket)).toMatchObject({ pid: 101 });
    await a.release();
    // And a clock ahead does not make a live lease look older.
    const c = await acquireBucketLease(bucket, options('tariff release', 303, { skewMs: 5 * 60_000 }));
    await expect(acquireBucketLease(bucket, options('tariff rollback', 404, { waitMs: 30_000 }))).rejects.toMatchObject({
      code: 'bucket_busy',
    });
    await c.release();
  });

  it('a holder of the same host name in another PID namespace is not taken for gone: its lease is waited out', async () => {
    const bucket = new LocalBucket(await tempDir());
    const { options } = writers();
    const me = identity(7, 'pid:[4026532001]');
    // Both containers are "cron-1" and their writers are both pid 7; only the namespace tells them apart.
    const a = await acquireBucketLease(bucket, { ...options('tariff release', 7), identity: identity(7, 'pid:[4026532000]') });
    const waiting = options('tariff rollback', 7, {
      identity: me,
      waitMs: 30_000,
      holderState: (holder) => holderState(holder, me),
    });
    await expect(acquireBucketLease(bucket, waiting)).rejects.toMatchObject({ code: 'bucket_busy' });
    await a.check();
    await a.release();
  });

  it('a lease it cannot read (damaged, another version) is waited out, never taken at once; the wait goes on across runs', async () => {
    const bucket = new LocalBucket(await tempDir());
    const { options } = writers();
    await bucket.put(
      LEASE_KEY,
      Buffer.from('{"owner":"tariff release","host":"old","pid":1,"since":"x","expires":"2000-01-01T00:00:00Z"}'),
    );
    let kept: LeaseSighting | null = null;
    const sightings = { read: async () => kept, write: async (seen: LeaseSighting | null) => void (kept = seen) };
    await expect(acquireBucketLease(bucket, options('tariff release', 101, { waitMs: 90_000, sightings }))).rejects.toMatchObject({
      code: 'bucket_busy',
      message: expect.stringContaining('a lease this version cannot read'),
    });
    expect(kept).not.toBeNull();
    // The next cron run goes on counting from the first sighting: 30 more seconds make the lease's life.
    const next = await acquireBucketLease(bucket, options('tariff release', 102, { waitMs: 31_000, sightings }));
    expect(await holderIn(bucket)).toMatchObject({ pid: 102 });
    expect(kept).toBeNull();
    await next.release();
  });

  it('a holder whose renewals fail for half the lease’s life stops before its next write, told it was too late (not that another writer exists)', async () => {
    const local = new LocalBucket(await tempDir());
    let failing = false;
    const flaky: Bucket = Object.assign(Object.create(local) as LocalBucket, {
      putIfUnchanged: async (key: string, data: Uint8Array, type: string, expected: string | null) => {
        if (failing) throw new Error('connection reset');
        return local.putIfUnchanged(key, data, type, expected);
      },
    });
    const { options, advance } = writers();
    const lease = await acquireBucketLease(flaky, options('tariff release', 101));
    await lease.check();
    failing = true;
    advance(61_000);
    const error = (await lease.check().then(
      () => null,
      (caught: unknown) => caught,
    )) as { code: string; hint: string } | null;
    expect(error?.code).toBe('bucket_lease_lost');
    expect(error?.hint).toMatch(/^This run was paused, or too slow/);
    expect(error?.hint).not.toContain('Another writer took the bucket over');
    await lease.release();
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

  it('refuses a store that honours If-None-Match but not If-Match, before any other write, and lets the lease go', async () => {
    const local = new LocalBucket(await tempDir());
    // Creates only if absent, as told; swaps whatever tag it is given.
    const halfway: Bucket = Object.assign(Object.create(local) as LocalBucket, {
      putIfUnchanged: async (key: string, data: Uint8Array, type: string, expected: string | null) => {
        if (expected === null) return local.putIfUnchanged(key, data, type, null);
        await local.put(key, data);
        return 'written' as const;
      },
    });
    await expect(acquireBucketLease(halfway, writers().options('tariff publish', 101))).rejects.toMatchObject({
      code: 'bucket_unsupported',
      message: expect.stringContaining('the store honours If-None-Match but not If-Match'),
    });
    expect(leaseHeld(await local.get(LEASE_KEY))).toBe(false);
  });

  it('a lease removed as it is probed (taken over and let go meanwhile) is not taken for a store that ignores conditions', async () => {
    const local = new LocalBucket(await tempDir());
    let removed = false;
    const vanishing: Bucket = Object.assign(Object.create(local) as LocalBucket, {
      putIfUnchanged: async (key: string, data: Uint8Array, type: string, expected: string | null) => {
        // Right after the lease is written, before the first probe, another writer takes it and lets it go.
        if (expected === null && !removed && (await local.get(LEASE_KEY))) {
          removed = true;
          await local.delete([LEASE_KEY]);
        }
        return local.putIfUnchanged(key, data, type, expected);
      },
    });
    const lease = await acquireBucketLease(vanishing, writers().options('tariff publish', 101));
    expect(removed).toBe(true);
    expect(lease.warning).toBeNull();
    await lease.check();
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

  it('a lease stating a life beyond an hour is not believed: waited out for the reader’s own life, never for its own', async () => {
    const bucket = new LocalBucket(await tempDir());
    const { options } = writers();
    const holder = {
      owner: 'tariff release',
      host: 'cron-2',
      pid: 7,
      since: '2026-11-25T09:00:00.000Z',
      expires: '2026-11-25T09:02:00.000Z',
      ttlMs: Number.MAX_SAFE_INTEGER,
      renewals: 0,
      holder: identity(7),
    };
    await bucket.put(LEASE_KEY, Buffer.from(JSON.stringify(holder)));
    await expect(acquireBucketLease(bucket, options('tariff publish', 101, { waitMs: 1_000 }))).rejects.toMatchObject({
      code: 'bucket_busy',
      message: expect.stringMatching(/a lease this version cannot read .*taken over if it is not renewed within 1[12]\d s/),
    });
    // Its own time to live (120 s) on its own clock, not 9e15 ms: then it is taken over.
    const next = await acquireBucketLease(bucket, options('tariff publish', 102, { waitMs: 130_000 }));
    expect(await holderIn(bucket)).toMatchObject({ pid: 102 });
    await next.release();
  });

  it.each([
    ['a folder', (path: string) => mkdirSync(path)],
    ['a FIFO', (path: string) => execFileSync('mkfifo', [path])],
  ])('%s where the lease should be: bucket_busy at once, naming it, never a bug or a wait', async (kind, make) => {
    const dir = await tempDir();
    make(join(dir, LEASE_KEY));
    const { options } = writers();
    let slept = 0;
    const sleep = async () => void (slept += 1);
    await expect(acquireBucketLease(new LocalBucket(dir), options('tariff publish', 101, { waitMs: 60_000, sleep }))).rejects.toMatchObject(
      {
        code: 'bucket_busy',
        message: expect.stringContaining(`writer-lock.json is ${kind}, not a lease: move it away once no writer runs`),
      },
    );
    // Refused at the first look: it will not go away by waiting.
    expect(slept).toBe(0);
  });
});
