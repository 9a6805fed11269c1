import { describe, expect, it } from 'vitest';
import { CurrentRelease } from '../../src/server/current-release.ts';
import type { Bucket } from '../../src/storage/bucket.ts';
import { LocalBucket } from '../../src/storage/local-bucket.ts';
import { tempDir } from '../helpers/temp-dir.ts';

describe('/healthz staleness', () => {
  it('counts from the last good refresh, so a read that hangs makes the service stale on time', async () => {
    const local = new LocalBucket(await tempDir());
    let hang = false;
    const bucket: Bucket = {
      description: local.description,
      get: (key) => (hang ? new Promise(() => {}) : local.get(key)),
      open: (key) => local.open(key),
      list: (prefix) => local.list(prefix),
      put: (key, data) => local.put(key, data),
      delete: (keys) => local.delete(keys),
    };
    let now = new Date('2026-11-23T10:00:00Z');
    const release = new CurrentRelease(bucket, { pollMs: 60_000, cacheBytes: 1, staleAfterMs: 600_000, log: () => {}, now: () => now });
    await release.refresh();
    expect(release.health()).toMatchObject({ status: 'ok', lastRefreshAt: '2026-11-23T10:00:00.000Z' });

    hang = true;
    void release.refresh();
    now = new Date('2026-11-23T10:09:00Z');
    expect(release.health().status).toBe('ok');
    // No failure recorded yet (the read still hangs), and ten minutes without a good refresh: stale.
    now = new Date('2026-11-23T10:10:01Z');
    expect(release.health()).toMatchObject({ status: 'stale', failingSince: null, lastRefreshAt: '2026-11-23T10:00:00.000Z' });
  });
});
