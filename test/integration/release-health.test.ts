import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CurrentRelease } from '../../src/server/current-release.ts';
import type { Bucket } from '../../src/storage/bucket.ts';
import { LocalBucket } from '../../src/storage/local-bucket.ts';
import { REPO, runCli } from '../helpers/run-cli.ts';
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

describe('/healthz and the signature of the served manifest', () => {
  it('warns within a day of the expiry, and is stale once the manifest expired', async () => {
    const dataDir = await tempDir();
    const folder = join(dataDir, 'bucket');
    const at = (date: string) => ({ env: { SOURCE_DATE_EPOCH: String(Date.parse(date) / 1000) } });
    const created = await runCli(
      ['signing-key', 'create', '--json', '--data-dir', dataDir, '--bucket', folder],
      at('2026-11-23T10:00:00Z'),
    );
    const keyFile = JSON.parse(created.stdout).file;
    const source = join(REPO, 'fixtures/sample/tariff/sigarette-2026-11-01.xml');
    const built = await runCli([
      'build',
      '--source',
      source,
      '--out',
      join(dataDir, 'release'),
      '--date',
      '2026-11-23',
      '--data-dir',
      dataDir,
    ]);
    expect(built.status).toBe(0);
    const published = await runCli(['publish', join(dataDir, 'release'), '--bucket', folder, '--data-dir', dataDir], {
      env: { ...at('2026-11-23T10:00:00Z').env, TARIFF_SIGNING_KEY: keyFile },
    });
    expect(published.status).toBe(0);

    let now = new Date('2026-11-29T09:59:59Z');
    const release = new CurrentRelease(new LocalBucket(folder), { pollMs: 60_000, cacheBytes: 1 << 20, log: () => {}, now: () => now });
    await release.refresh();
    expect(release.health()).toMatchObject({ status: 'ok', expires: '2026-11-30T10:00:00.000Z', warning: null });
    now = new Date('2026-11-29T10:00:01Z');
    expect(release.health()).toMatchObject({
      status: 'ok',
      warning: 'the current manifest expires on 2026-11-30T10:00:00.000Z, within a day: run tariff release (it signs it again)',
    });
    now = new Date('2026-11-30T10:00:00Z');
    expect(release.health()).toMatchObject({
      status: 'stale',
      problem: 'the current manifest expired on 2026-11-30T10:00:00.000Z: run tariff release (it signs it again)',
      warning: null,
    });
    // The key list is served as the bucket holds it.
    expect(JSON.parse(release.keys.toString())).toEqual({ keys: [expect.objectContaining({ keyId: JSON.parse(created.stdout).keyId })] });
  });
});

describe('the signing keys a service serves', () => {
  it('keeps serving the manifest when keys.json is damaged, with the keys it read last, and says so once', async () => {
    const dir = await tempDir();
    const local: Bucket = new LocalBucket(dir);
    const events: Record<string, unknown>[] = [];
    const release = new CurrentRelease(local, { pollMs: 60_000, cacheBytes: 1, log: (event) => events.push(event) });
    const list = {
      keys: [
        {
          keyId: '0123456789abcdef',
          algorithm: 'ed25519',
          publicKey: `${'A'.repeat(43)}=`,
          created: '2026-11-01T00:00:00.000Z',
          retiredAt: null,
        },
      ],
    };
    await local.put('keys.json', Buffer.from(JSON.stringify(list)), 'application/json');
    await release.refresh();
    expect(release.signingKeys).toEqual(list);
    expect(events).toContainEqual({ event: 'signing_keys.changed', keys: ['0123456789abcdef'], retired: [] });

    await local.put('keys.json', Buffer.from('{"keys": "damaged"'), 'application/json');
    await release.refresh();
    await release.refresh();
    expect(release.signingKeys).toEqual(list);
    expect(release.health()).toMatchObject({ status: 'ok', problem: null });
    expect(events.filter((event) => event.event === 'signing_keys.unreadable')).toHaveLength(1);
  });
});
