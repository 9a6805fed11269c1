import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { parseBarcodeList } from '../../src/dataset/parse-barcode-list.ts';
import { publishRelease } from '../helpers/publish-release.ts';
import { generateApiKey } from '../../src/registry/api-key.ts';
import { BACKENDS, type RegistryLocation } from '../helpers/registries.ts';
import { buildRelease } from '../../src/pipeline/build-release.ts';
import { createApp } from '../../src/server/app.ts';
import { CurrentRelease } from '../../src/server/current-release.ts';
import type { HttpRequest } from '../../src/server/http.ts';
import { LocalBucket } from '../../src/storage/local-bucket.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const SAMPLE = new URL('../../fixtures/sample/', import.meta.url);

/** The app with a clock the test moves, a real SQLite registry and a local bucket holding one release. */
let backend: () => Promise<RegistryLocation>;

async function setUp() {
  const dir = await tempDir();
  const bucket = new LocalBucket(join(dir, 'bucket'));
  const sources = ['altri-tabacchi-2026-06-01.xml', 'liquidi-2026-06-01.xml', 'sigarette-2026-11-01.xml'].map((name) => ({
    name,
    bytes: readFileSync(new URL(`tariff/${name}`, SAMPLE)),
  }));
  const built = await buildRelease({
    sources,
    barcodes: parseBarcodeList(readFileSync(new URL('barcodes.csv', SAMPLE), 'utf8'), 'b.csv'),
    date: '2026-11-22',
    baseUrl: 'http://127.0.0.1/v1',
    previous: null,
    allowShrink: false,
    maxShrinkPercent: 20,
    now: () => new Date(),
    scratchDir: await tempDir(),
  });
  await publishRelease(bucket, built, { keep: 30 });
  const registry = await (await backend()).open();
  const release = new CurrentRelease(bucket, { pollMs: 60_000, cacheBytes: 1, log: () => {} });
  await release.refresh();
  let now = new Date('2026-11-22T23:59:58Z');
  const app = createApp({ registry, release, now: () => now });
  const account = await registry.createAccount({ email: 'shop@example.it', type: 'Supplier', submitLimit: 250 }, now);
  const key = generateApiKey();
  await registry.addKey(account.id, { fingerprint: key.fingerprint, prefix: key.displayPrefix, label: '' }, now);
  const call = (path: string, headers: Record<string, string> = {}) => {
    const request: HttpRequest = {
      method: 'GET',
      path,
      query: new URLSearchParams(),
      headers: { authorization: `Bearer ${key.key}`, ...headers },
      body: async () => Buffer.alloc(0),
      remoteAddress: '127.0.0.1',
    };
    return app(request);
  };
  return { call, built, setNow: (value: string) => (now = new Date(value)) };
}

describe.each(BACKENDS)('the app with a fixed clock on %s', (_, location) => {
  beforeEach(() => {
    backend = location;
  });

  it('refuses the 11th read of a UTC day with the seconds left to midnight, and resets at 00:00 UTC', async () => {
    const { call, setNow } = await setUp();
    for (let i = 0; i < 10; i++) expect((await call('/v1/version')).status).toBe(200);
    const refused = await call('/v1/version');
    expect(refused.status).toBe(429);
    expect(JSON.parse(String(refused.body))).toEqual({ error: 'rate_limited', message: expect.any(String), retryAfterSeconds: 2 });
    expect(refused.headers).toMatchObject({
      'retry-after': '2',
      'x-ratelimit-remaining': '0',
      'x-ratelimit-reset': String(Date.parse('2026-11-23T00:00:00Z') / 1000),
    });

    setNow('2026-11-23T00:00:00Z');
    const next = await call('/v1/me');
    expect(next.status).toBe(200);
    expect(JSON.parse(String(next.body)).limits).toEqual({
      read: { period: 'day', limit: 10, used: 1, remaining: 9, resetsAt: '2026-11-24T00:00:00+00:00' },
      submit: { period: 'hour', limit: 250, used: 0, remaining: 250, resetsAt: '2026-11-23T01:00:00+00:00' },
    });
  });

  it('streams a file from the bucket when it does not fit in the cache', async () => {
    const { call, built } = await setUp();
    const response = await call('/v1/dataset.docdb.gz');
    expect(response.status).toBe(200);
    const chunks: Buffer[] = [];
    for await (const chunk of response.body as AsyncIterable<Buffer>) chunks.push(chunk);
    expect(Buffer.concat(chunks).equals(built.files.docdb)).toBe(true);
  });
});
