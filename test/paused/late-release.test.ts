import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { leaseHeld, LEASE_KEY } from '../../src/publish/bucket-lease.ts';
import { S3Bucket } from '../../src/storage/s3-bucket.ts';
import { onDay } from '../helpers/run-cli.ts';
import { startS3, type S3Stand } from '../helpers/s3-server.ts';
import { storeProxy, type StoreProxy } from '../helpers/s3-store-proxy.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import { endWritersAfterEachTest, startWriter } from './writers.ts';

/**
 * A writer's release of its lease held in the network past another writer's takeover (its lease
 * expired meanwhile): when it lands at last, it must not remove the lease the other now holds,
 * and the other's run, under way, succeeds. Letting go is a write conditioned on the releaser's
 * own lease (bucket-lease.ts), never a deletion, so the store refuses the late one.
 */
let s3: S3Stand;
let proxy: StoreProxy;
endWritersAfterEachTest();
beforeAll(async () => {
  s3 = await startS3();
  proxy = await storeProxy({ endpoint: s3.endpoint });
});
afterAll(async () => {
  await proxy?.close();
  await s3?.close();
});

describe('a lease release held in the network past another writer’s takeover (Ceph RGW)', () => {
  it('leaves that writer’s lease, and its run succeeds', async () => {
    const uri = `s3://${s3.bucket}/late-release`;
    const raw = new S3Bucket({ bucket: s3.bucket, prefix: 'late-release', env: s3.env, pathStyle: true });
    const env = (dir: string) => ({ ...s3.env, ...onDay('2026-11-22'), TARIFF_BUCKET: uri, TARIFF_DATA_DIR: dir });
    const [dirA, dirB, dirAlone] = [await tempDir(), await tempDir(), await tempDir()];
    // A's write requests alone, as the proxy counts them, on the bucket as A will find it (the
    // first run creates its format object and lets a lease go): its release of the lease is the last.
    let count = 0;
    for (const run of [1, 2]) {
      const before = proxy.writes.length;
      const alone = startWriter('process', ['signing-key', 'create', '--json'], {
        ...env(`${dirAlone}/${run}`),
        AWS_ENDPOINT_URL_S3: proxy.url,
      });
      expect((await alone.exited).status).toBe(0);
      count = proxy.writes.length - before;
    }
    expect(proxy.writes.at(-1)).toBe(`PUT ${LEASE_KEY} If-Match`);

    const holding = proxy.holdWrite(count, 'request held');
    const a = startWriter('process', ['signing-key', 'create', '--json'], { ...env(dirA), AWS_ENDPOINT_URL_S3: proxy.url });
    expect(await holding.held).toBe(`PUT ${LEASE_KEY} If-Match`);
    // A's lease runs out while its release waits in the network: taken from it here rather than waited for.
    await raw.delete([LEASE_KEY]);
    // B takes the bucket and stops before its own key list write, its lease held.
    const b = startWriter('thread', ['signing-key', 'create', '--json'], {
      ...env(dirB),
      TARIFF_TEST_BUCKET_WRITES: `${dirB}/writes.log`,
      TARIFF_TEST_PAUSE_BEFORE_WRITE: 'swap keys.json',
    });
    await expect.poll(() => b.stopped() || b.ended(), { timeout: 120_000, interval: 5 }).toBe(true);
    expect(b.ended(), 'B stopped before its key list write').toBe(false);
    const heldByB = (await raw.get(LEASE_KEY))!;
    expect(leaseHeld(heldByB)).toBe(true);
    // A's release lands now, late: refused by the store, B's lease untouched.
    holding.release();
    const resultA = await a.exited;
    expect(resultA.status, resultA.stderr).toBe(0);
    expect(await raw.get(LEASE_KEY)).toEqual(heldByB);
    b.resume();
    const resultB = await b.exited;
    expect(resultB.status, resultB.stderr).toBe(0);
    const keys = JSON.parse((await raw.get('keys.json'))!.toString()) as { keys: { keyId: string }[] };
    const ids = [resultA, resultB].map((result) => (JSON.parse(result.stdout) as { keyId: string }).keyId);
    expect(keys.keys.map((key) => key.keyId)).toEqual(expect.arrayContaining(ids));
  });
});
