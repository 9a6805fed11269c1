import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildRelease } from '../../src/pipeline/build-release.ts';
import { publishRelease } from '../helpers/publish-release.ts';
import { rollbackRelease } from '../../src/publish/bucket-releases.ts';
import { CurrentRelease } from '../../src/server/current-release.ts';
import type { Bucket } from '../../src/storage/bucket.ts';
import { LocalBucket } from '../../src/storage/local-bucket.ts';
import { REPO, runCli } from '../helpers/run-cli.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import { waitFor } from '../helpers/wait-for.ts';

/** The folder bucket with its reads (`get`) replaced, everything else its own. */
const withGet = (local: LocalBucket, get: Bucket['get']): Bucket => Object.assign(Object.create(local) as LocalBucket, { get });

describe('/healthz staleness', () => {
  it('counts from the last good refresh, so a read that hangs makes the service stale on time', async () => {
    const local = new LocalBucket(await tempDir());
    let hang = false;
    const bucket = withGet(local, (key) => (hang ? new Promise(() => {}) : local.get(key)));
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
    const local = new LocalBucket(dir);
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

describe('the served release only moves forward', () => {
  /** Two releases built from the sample lists: 22 November and 1 December 2026. */
  async function twoReleases(bucket: LocalBucket) {
    const built = [];
    for (const [list, date] of [
      ['sigarette-2026-11-01.xml', '2026-11-22'],
      ['sigarette-2026-12-01.xml', '2026-12-01'],
    ] as const) {
      const release = await buildRelease({
        sources: [{ name: list, bytes: readFileSync(join(REPO, 'fixtures/sample/tariff', list)) }],
        barcodes: [],
        date,
        baseUrl: 'http://127.0.0.1/v1',
        previous: null,
        allowShrink: true,
        maxShrinkPercent: 20,
        now: () => new Date('2026-12-01T05:00:00Z'),
        scratchDir: await tempDir(),
      });
      built.push(release);
    }
    await publishRelease(bucket, built[0]!, { keep: 30 });
    return { older: built[0]!, newer: built[1]! };
  }

  it('keeps the newer release when a read held back ends after it, and still follows a rollback', async () => {
    const local = new LocalBucket(await tempDir());
    const { older, newer } = await twoReleases(local);
    // Reads of current.json take their answer when asked and give it only when the test lets them.
    const held: (() => void)[] = [];
    let holding = false;
    const bucket = withGet(local, async (key) => {
      const answer = await local.get(key);
      if (key === 'current.json' && holding) await new Promise<void>((release) => held.push(release));
      return answer;
    });
    let now = new Date('2026-12-01T06:00:00Z');
    const events: Record<string, unknown>[] = [];
    const release = new CurrentRelease(bucket, { pollMs: 60_000, cacheBytes: 1 << 20, log: (event) => events.push(event), now: () => now });

    // The first read answers "older" and is held; it hangs past the limit and is abandoned.
    holding = true;
    const first = release.refresh();
    await waitFor(async () => held.length === 1, 'the first read to be held');
    holding = false;
    await publishRelease(local, newer, { keep: 30 });
    now = new Date('2026-12-01T06:10:00Z');
    await release.refresh();
    expect(events).toContainEqual(expect.objectContaining({ event: 'release.refresh_hung' }));
    expect(release.current?.manifest.version).toBe(newer.manifest.version);

    // The held read ends last: the service does not step back to what it said.
    held[0]!();
    await first;
    expect(release.current?.manifest.version).toBe(newer.manifest.version);
    expect(events).toContainEqual(expect.objectContaining({ event: 'release.refresh_superseded', version: older.manifest.version }));

    // An operator's rollback is read by a later refresh, and followed.
    await rollbackRelease(local, older.manifest.version);
    await release.refresh();
    expect(release.current?.manifest.version).toBe(older.manifest.version);
  });
});
