import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Bucket } from '../../src/storage/bucket.ts';
import { LocalBucket } from '../../src/storage/local-bucket.ts';
import { CLI, REPO, runCli } from '../helpers/run-cli.ts';
import { serveInProcess } from '../helpers/serve-in-process.ts';
import { startServe, type RunningServe } from '../helpers/serve-process.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const SAMPLE = join(REPO, 'fixtures/sample');
let dataDir: string;
let service: RunningServe | null = null;

beforeEach(async () => {
  dataDir = await tempDir();
});
afterEach(async () => {
  await service?.stop();
  service = null;
});

const cli = (args: string[]) => runCli([...args, '--data-dir', dataDir]);
async function account(email: string): Promise<string> {
  expect((await cli(['accounts', 'create', email, '--type', 'User'])).status).toBe(0);
  const created = await cli(['keys', 'create', email, '--label', 'test', '--json']);
  return JSON.parse(created.stdout).key;
}
async function publish(date = '2026-11-22', barcodes = true) {
  const out = join(dataDir, 'build', date);
  await cli([
    'build',
    '--source',
    join(SAMPLE, 'tariff'),
    ...(barcodes ? ['--barcodes', join(SAMPLE, 'barcodes.csv')] : []),
    '--date',
    date,
    '--out',
    out,
  ]);
  const result = await cli(['publish', out]);
  expect(result.status).toBe(0);
  return JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'));
}
/** The service of `tariff serve --base-url https://tariff.example/v1`, in this process (what needs a process of its own uses startServe). */
async function serve() {
  service = await serveInProcess(dataDir, { TARIFF_BASE_URL: 'https://tariff.example/v1', TARIFF_MANIFEST_POLL_MS: '100' });
  return service.url;
}
/** A bucket whose streams of one key, opened between `hold()` and `letGo()`, send nothing until then; `opened()` settles once one was. */
class HeldStreams implements Bucket {
  readonly description: string;
  private readonly starts: (() => void)[] = [];
  private held = false;
  private wasOpened = false;
  private onOpen: () => void = () => {};
  private readonly inner: LocalBucket;
  private readonly key: string;

  constructor(inner: LocalBucket, key: string) {
    this.inner = inner;
    this.key = key;
    this.description = inner.description;
  }
  get = (key: string) => this.inner.get(key);
  getTagged = (key: string) => this.inner.getTagged(key);
  putIfUnchanged = (key: string, data: Uint8Array, contentType: string, expected: string | null) =>
    this.inner.putIfUnchanged(key, data, contentType, expected);
  put = (key: string, data: Uint8Array) => this.inner.put(key, data);
  create = (key: string, data: Uint8Array, contentType: string) => this.inner.create(key, data, contentType);
  overwrite = (key: string, data: Uint8Array, contentType: string, expected: string) =>
    this.inner.overwrite(key, data, contentType, expected);
  modified = (key: string) => this.inner.modified(key);
  list = (prefix: string) => this.inner.list(prefix);
  delete = (keys: string[]) => this.inner.delete(keys);
  async open(key: string) {
    const object = await this.inner.open(key);
    if (!object || key !== this.key || !this.held) return object;
    const body = new PassThrough();
    this.starts.push(() => object.body.pipe(body));
    this.wasOpened = true;
    this.onOpen();
    return { size: object.size, body };
  }
  hold(): void {
    this.held = true;
  }
  opened(): Promise<void> {
    return this.wasOpened ? Promise.resolve() : new Promise((resolve) => (this.onOpen = resolve));
  }
  letGo(): void {
    this.held = false;
    for (const start of this.starts.splice(0)) start();
  }
}

const get = (url: string, path: string, headers: Record<string, string> = {}) => fetch(`${url}${path}`, { headers });
const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

describe('tariff serve', () => {
  it('serves the current manifest and the three files with the headers of the spec', async () => {
    const manifest = await publish();
    const key = await account('shop@example.it');
    const url = await serve();

    const version = await get(url, '/v1/version', bearer(key));
    expect(version.status).toBe(200);
    expect(version.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await version.json()).toEqual({
      ...manifest,
      files: {
        json: { ...manifest.files.json, url: 'https://tariff.example/v1/dataset.json.gz' },
        sqlite: { ...manifest.files.sqlite, url: 'https://tariff.example/v1/dataset.sqlite.gz' },
        docdb: { ...manifest.files.docdb, url: 'https://tariff.example/v1/dataset.docdb.gz' },
      },
    });

    for (const format of ['json', 'sqlite', 'docdb']) {
      const response = await get(url, `/v1/dataset.${format}.gz`, { 'x-api-key': key });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/gzip');
      expect(response.headers.get('content-disposition')).toBe(`attachment; filename="tariffa-tabacchi-${manifest.version}.${format}.gz"`);
      expect(response.headers.get('etag')).toBe(`"${manifest.files[format].sha256}"`);
      const bytes = Buffer.from(await response.arrayBuffer());
      expect(bytes.length).toBe(manifest.files[format].size);
      expect(createHash('sha256').update(bytes).digest('hex')).toBe(manifest.files[format].sha256);
    }
  });

  it('answers 304 with an empty body to a matching If-None-Match, and still counts the read', async () => {
    const manifest = await publish();
    const key = await account('shop@example.it');
    const url = await serve();
    const etag = `"${manifest.files.sqlite.sha256}"`;
    const response = await get(url, '/v1/dataset.sqlite.gz', { ...bearer(key), 'if-none-match': etag });
    expect(response.status).toBe(304);
    expect(response.headers.get('etag')).toBe(etag);
    expect(await response.text()).toBe('');
    expect(response.headers.get('x-ratelimit-remaining')).toBe('9');
    expect((await get(url, '/v1/dataset.sqlite.gz', { ...bearer(key), 'if-none-match': '"other"' })).status).toBe(200);
  });

  it('answers 404 no_release before anything is published, and counts the read', async () => {
    const key = await account('shop@example.it');
    const url = await serve();
    for (const path of ['/v1/version', '/v1/dataset.json.gz']) {
      const response = await get(url, path, bearer(key));
      expect(response.status).toBe(404);
      expect(await response.json()).toMatchObject({ error: 'no_release', message: expect.any(String) });
    }
    const me = await (await get(url, '/v1/me', bearer(key))).json();
    expect(me.limits.read).toMatchObject({ used: 3, remaining: 7 });
  });

  it('is not ready (503, Retry-After) until it serves a release, then ready; /healthz and liveness unaffected', async () => {
    const url = await serve();
    const before = await get(url, '/readyz');
    expect(before.status).toBe(503);
    expect(before.headers.get('retry-after')).toBe('5');
    expect(await before.json()).toMatchObject({ status: 'not_ready', release: null, problem: expect.stringContaining('no release') });
    const { version } = await publish();
    await service!.logged((entry) => entry.event === 'release.switch');
    const after = await get(url, '/readyz');
    expect(after.status).toBe(200);
    expect(await after.json()).toEqual({ status: 'ready', release: version });
  });

  it('without TARIFF_BASE_URL, names its own address in the manifest: the files download from there', async () => {
    const key = await account('shop@example.it');
    await publish();
    service = await serveInProcess(dataDir, { TARIFF_MANIFEST_POLL_MS: '100' });
    const manifest = await (await get(service.url, '/v1/version', bearer(key))).json();
    expect(manifest.files.json.url).toBe(`${service.url}/v1/dataset.json.gz`);
    const file = await fetch(manifest.files.sqlite.url, { headers: bearer(key) });
    expect(file.status).toBe(200);
    expect(
      createHash('sha256')
        .update(Buffer.from(await file.arrayBuffer()))
        .digest('hex'),
    ).toBe(manifest.files.sqlite.sha256);
  });

  it('gives the same 401 to a missing, malformed, unknown or revoked key and to a blocked account', async () => {
    await publish();
    const key = await account('shop@example.it');
    const blockedKey = await account('blocked@example.it');
    const revokedKey = await account('revoked@example.it');
    const url = await serve();
    expect((await get(url, '/v1/me', bearer(revokedKey))).status).toBe(200);
    expect((await cli(['keys', 'revoke', 'revoked@example.it', revokedKey.slice(0, 12)])).status).toBe(0);
    expect((await cli(['accounts', 'block', 'blocked@example.it'])).status).toBe(0);

    const cases: Record<string, string>[] = [
      {},
      { authorization: 'Bearer' },
      { authorization: 'Basic dXNlcjpwYXNz' },
      { authorization: 'Bearer not-a-key' },
      { 'x-api-key': `${key.slice(0, -1)}${key.endsWith('A') ? 'B' : 'A'}` },
      bearer(revokedKey),
      bearer(blockedKey),
    ];
    const bodies = new Set<string>();
    for (const headers of cases) {
      const response = await get(url, '/v1/version', headers);
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe('Bearer');
      expect(response.headers.get('x-ratelimit-limit')).toBeNull();
      const body = await response.json();
      expect(body).toMatchObject({ error: 'invalid_api_key', message: expect.any(String) });
      bodies.add(JSON.stringify(body));
    }
    expect(bodies.size).toBe(1);
    expect((await cli(['accounts', 'unblock', 'blocked@example.it'])).status).toBe(0);
    expect((await get(url, '/v1/me', bearer(blockedKey))).status).toBe(200);
  });

  it('spends 10 reads a day, then answers 429 without running the call', async () => {
    await publish();
    const key = await account('shop@example.it');
    const url = await serve();
    for (let i = 1; i <= 10; i++) {
      const response = await get(url, '/v1/version', bearer(key));
      expect(response.status).toBe(200);
      expect(response.headers.get('x-ratelimit-limit')).toBe('10');
      expect(response.headers.get('x-ratelimit-remaining')).toBe(String(10 - i));
    }
    const refused = await get(url, '/v1/dataset.json.gz', bearer(key));
    expect(refused.status).toBe(429);
    const body = await refused.json();
    const nextMidnight = new Date();
    nextMidnight.setUTCHours(24, 0, 0, 0);
    expect(body).toMatchObject({ error: 'rate_limited', message: expect.any(String), retryAfterSeconds: expect.any(Number) });
    expect(refused.headers.get('retry-after')).toBe(String(body.retryAfterSeconds));
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(refused.headers.get('x-ratelimit-reset')).toBe(String(nextMidnight.getTime() / 1000));
    expect(body.retryAfterSeconds).toBeLessThanOrEqual(86_400);
  });

  it('gives exactly 10 successes to 50 concurrent requests of a fresh account', async () => {
    await publish();
    const key = await account('shop@example.it');
    const url = await serve();
    const statuses = await Promise.all(
      Array.from({ length: 50 }, () => get(url, '/v1/version', bearer(key)).then(async (r) => (await r.arrayBuffer(), r.status))),
    );
    expect(statuses.filter((s) => s === 200)).toHaveLength(10);
    expect(statuses.filter((s) => s === 429)).toHaveLength(40);
  });

  it('keeps the quota exact across worker processes sharing the registry', async () => {
    await publish();
    const key = await account('shop@example.it');
    service = await startServe(['serve', '--data-dir', dataDir, '--workers', '2']);
    const statuses = await Promise.all(
      Array.from({ length: 50 }, () => get(service!.url, '/v1/version', bearer(key)).then(async (r) => (await r.arrayBuffer(), r.status))),
    );
    expect(statuses.filter((s) => s === 200)).toHaveLength(10);
    expect(statuses.filter((s) => s === 429)).toHaveLength(40);
  });

  it('shares the quota between the keys of one account, and reports both counters on /v1/me', async () => {
    await publish();
    const first = await account('shop@example.it');
    const second = JSON.parse((await cli(['keys', 'create', 'shop@example.it', '--json'])).stdout).key;
    const url = await serve();
    await get(url, '/v1/version', bearer(first));
    const me = await (await get(url, '/v1/me', { 'x-api-key': second })).json();
    const hour = new Date();
    hour.setUTCMinutes(60, 0, 0);
    expect(me).toEqual({
      email: 'shop@example.it',
      type: 'User',
      limits: {
        read: { period: 'day', limit: 10, used: 2, remaining: 8, resetsAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T00:00:00\+00:00$/) },
        submit: { period: 'hour', limit: 100, used: 0, remaining: 100, resetsAt: hour.toISOString().replace('.000Z', '+00:00') },
      },
    });
  });

  it('serves a newly published release without a restart, never mixing two releases in one download', async () => {
    const first = await publish('2026-11-22');
    const key = await account('shop@example.it');
    // The files stream from the bucket (no cache), and the bucket holds each stream until the test lets it go:
    // the second release becomes current while the first download is under way.
    const bucket = new HeldStreams(new LocalBucket(join(dataDir, 'bucket')), 'releases/20261101.1/dataset.json.gz');
    service = await serveInProcess(dataDir, { TARIFF_MANIFEST_POLL_MS: '100', TARIFF_CACHE_BYTES: '1' }, { bucket });
    const url = service.url;
    bucket.hold();
    const downloading = get(url, '/v1/dataset.json.gz', bearer(key));
    await bucket.opened();
    const second = await publish('2026-12-01');
    expect(second.version).not.toBe(first.version);
    await service.logged((entry) => entry.event === 'release.switch' && entry.version === second.version);
    bucket.letGo();
    const before = await downloading;
    const bytes = Buffer.from(await before.arrayBuffer());
    expect(before.headers.get('etag')).toBe(`"${first.files.json.sha256}"`);
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(first.files.json.sha256);
    const other = await account('shop2@example.it');
    expect((await (await get(url, '/v1/version', bearer(other))).json()).version).toBe(second.version);
  });

  it('answers unknown paths, wrong methods, oversized and malformed requests with JSON errors, free of quota', async () => {
    await publish();
    const key = await account('shop@example.it');
    const url = await serve();
    const unknown = await get(url, '/v1/nope', bearer(key));
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ error: 'not_found' });
    const wrong = await fetch(`${url}/v1/version`, { method: 'DELETE', headers: bearer(key) });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('GET, HEAD');
    expect(await wrong.json()).toMatchObject({ error: 'method_not_allowed' });
    // HEAD is answered wherever GET is: the same headers, no body, and under /v1 a read spent like the GET's.
    const before = Number(
      (await fetch(`${url}/v1/version`, { method: 'HEAD', headers: bearer(key) })).headers.get('x-ratelimit-remaining'),
    );
    const head = await fetch(`${url}/v1/dataset.json.gz`, { method: 'HEAD', headers: bearer(key) });
    expect(head.status).toBe(200);
    expect(head.headers.get('etag')).toMatch(/^"[0-9a-f]{64}"$/);
    expect(Number(head.headers.get('content-length'))).toBeGreaterThan(0);
    expect(Number(head.headers.get('x-ratelimit-remaining'))).toBe(before - 1);
    expect((await head.arrayBuffer()).byteLength).toBe(0);
    const raw = (text: string) =>
      new Promise<string>((resolve) => {
        const socket = connect(Number(new URL(url).port), '127.0.0.1', () => socket.write(text));
        let data = '';
        socket.on('data', (chunk) => (data += chunk));
        socket.on('close', () => resolve(data));
        socket.on('error', () => resolve(data));
      });
    const big = await raw(
      `POST /v1/version HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Length: ${2 * 1024 * 1024}\r\n\r\n{"items":[`,
    );
    expect(big).toMatch(/^HTTP\/1\.1 413 /);
    expect(big).toContain('"error":"payload_too_large"');

    const malformed = await raw('GET /v1/version HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n');
    expect(malformed).toMatch(/^HTTP\/1\.1 400 Bad Request/);
    expect(malformed).toContain('{"error":"bad_request"');

    const health = await get(url, '/healthz');
    expect(await health.json()).toMatchObject({
      status: 'ok',
      release: '20261101.1',
      failingSince: null,
      problem: null,
      fallback: false,
      lastRefreshAt: expect.any(String),
    });
    // The two HEADs and this call: errors spent nothing.
    expect((await (await get(url, '/v1/me', bearer(key))).json()).limits.read.used).toBe(3);

    // The API's description, without a key and without a read.
    const openapi = await get(url, '/openapi.json');
    expect(openapi.status).toBe(200);
    expect(await openapi.text()).toBe(readFileSync(join(REPO, 'docs/openapi.json'), 'utf8'));
    expect((await (await get(url, '/v1/me', bearer(key))).json()).limits.read.used).toBe(4);
  });

  it('says clearly when its port is taken, and exits 1, closing what it had started', async () => {
    const url = await serve();
    const port = new URL(url).port;
    // A real process, with the registry on PostgreSQL where there is one: a pool left open would hold it.
    const registry = process.env.TARIFF_TEST_POSTGRES_URL ? { TARIFF_REGISTRY: process.env.TARIFF_TEST_POSTGRES_URL } : {};
    const result = spawnSync(process.execPath, [CLI, 'serve', '--host', '127.0.0.1', '--port', port, '--data-dir', dataDir], {
      env: { ...process.env, ...registry },
      encoding: 'utf8',
      // A guard against a service that stays up (a pool left open holds it), not a speed claim:
      // killed past it, the test sees a signal, not an exit status.
      timeout: 20_000,
    });
    expect(result.signal).toBeNull();
    expect(result.status).toBe(1);
    expect(result.stderr.split('\n')[0]).toBe(`tariff: cannot listen on 127.0.0.1:${port}: address in use`);
  });

  it('logs one line per request with the account and never the key', async () => {
    await publish();
    const key = await account('shop@example.it');
    const url = await serve();
    await get(url, '/v1/version', bearer(key));
    await get(url, '/v1/version', { authorization: 'Bearer ttd_wrong' });
    await service!.stop();
    const lines = service!.log.filter((entry) => entry.path === '/v1/version');
    expect(lines).toEqual([
      expect.objectContaining({ method: 'GET', status: 200, account: 1, durationMs: expect.any(Number) }),
      expect.objectContaining({ method: 'GET', status: 401, account: null }),
    ]);
    expect(JSON.stringify(service!.log)).not.toContain(key.slice(4));
    service = null;
  });
});
