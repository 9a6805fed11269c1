import { writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { publishRealReleases } from '../helpers/real-releases.ts';
import { onDay, runCli } from '../helpers/run-cli.ts';
import { serveInProcess } from '../helpers/serve-in-process.ts';
import { startServe, type RunningServe } from '../helpers/serve-process.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import { readBucketJson, bucketKeyPath } from '../helpers/bucket-folder.ts';

const TOKEN = 'metriche-segrete-0123456789';
/** The service's clock: the day after the August release, so ages and expiries are exact. */
const NOW = new Date('2026-08-02T12:00:00Z');

let dataDir: string;
let service: RunningServe | null = null;
beforeEach(async () => {
  dataDir = await tempDir();
  await publishRealReleases(dataDir);
});
afterEach(async () => {
  await service?.stop();
  service = null;
});

const cli = (args: string[], env: Record<string, string> = {}) => runCli([...args, '--data-dir', dataDir], { env });
const currentManifest = () => readBucketJson(join(dataDir, 'bucket'), 'current.json');

/** One sample of the exposition text: `name{a="1",b="2"} value`, found by its name and labels (any order). */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    const match = /^([a-z_]+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const found = Object.fromEntries([...(match[2] ?? '').matchAll(/([a-z_]+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.keys(found).length === Object.keys(labels).length && Object.entries(labels).every(([k, v]) => found[k] === v))
      return Number(match[3]);
  }
  return undefined;
}

async function metricsUrl(running: RunningServe): Promise<string> {
  return String((await running.logged((entry) => entry.event === 'metrics.listening')).url);
}

/** A request on a connection of its own (so workers of a cluster take turns), answered in full. */
function get(url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    request(url, { headers, agent: false }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode!, body: Buffer.concat(chunks).toString('utf8') }));
    })
      .on('error', reject)
      .end();
  });
}

describe('GET /metrics', () => {
  it('counts what a scripted run did: downloads, a 429, a 401, refused sign-ins, a rollback, a bucket that fails', async () => {
    const key = await cli(['signing-key', 'create', '--json'], onDay('2026-08-02'));
    const signingKey = JSON.parse(key.stdout).file as string;
    expect((await cli(['accounts', 'create', 'cassa@example.it', '--type', 'User'])).status).toBe(0);
    const apiKey = JSON.parse((await cli(['keys', 'create', 'cassa@example.it', '--json'])).stdout).key as string;
    const env = { TARIFF_METRICS_PORT: '0', TARIFF_METRICS_TOKEN: TOKEN, TARIFF_MANIFEST_POLL_MS: '20', TARIFF_SIGNIN_LIMIT_ADDRESS: '1' };
    service = await serveInProcess(dataDir, env, { now: () => NOW });
    const scrapeUrl = await metricsUrl(service);
    const v1 = (path: string, headers: Record<string, string> = {}) =>
      get(`${service!.url}${path}`, { authorization: `Bearer ${apiKey}`, ...headers });

    // Ten reads a day: a download, the same download not modified, eight manifests; the eleventh is refused.
    const json = currentManifest().files.json;
    expect((await v1('/v1/dataset.json.gz')).status).toBe(200);
    expect((await v1('/v1/dataset.json.gz', { 'if-none-match': `"${json.sha256}"` })).status).toBe(304);
    for (let i = 0; i < 8; i++) expect((await v1('/v1/version')).status).toBe(200);
    expect((await v1('/v1/version')).status).toBe(429);
    expect((await get(`${service.url}/v1/version`, { authorization: 'Bearer ttd_nonesiste' })).status).toBe(401);

    // Sign-in: a second link for the same address within the hour, and a link that is no link.
    const form = await get(`${service.url}/accedi`);
    const csrf = /name="_csrf" value="([^"]+)"/.exec(form.body)![1]!;
    const post = (path: string, body: string) =>
      new Promise<number>((resolve, reject) => {
        request(`${service!.url}${path}`, {
          method: 'POST',
          agent: false,
          headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: `csrf=${csrf}`, origin: service!.url },
        })
          .on('response', (response) => (response.resume(), resolve(response.statusCode!)))
          .on('error', reject)
          .end(body);
      });
    expect(await post('/accedi', `_csrf=${csrf}&email=cassa%40example.it`)).toBe(200);
    expect(await post('/accedi', `_csrf=${csrf}&email=cassa%40example.it`)).toBe(429);
    expect(await post('/accesso', `_csrf=${csrf}&token=nessuno`)).not.toBe(200);

    // A rollback, signed: the service follows it.
    const switched = service.logged((entry) => entry.event === 'release.switch' && entry.version === '20260722.1');
    expect((await cli(['rollback', '20260722.1'], { ...onDay('2026-08-02'), TARIFF_SIGNING_KEY: signingKey })).status).toBe(0);
    await switched;
    const served = currentManifest();

    // Without the token, or with another, the metrics are refused.
    expect((await get(scrapeUrl)).status).toBe(401);
    expect((await get(scrapeUrl, { authorization: 'Bearer metriche-sbagliate-0000000' })).status).toBe(401);

    // Then the bucket's current manifest breaks: a failed read of the bucket.
    const failed = service.logged((entry) => entry.event === 'release.refresh_failed');
    writeFileSync(bucketKeyPath(join(dataDir, 'bucket'), 'current.json'), '{ not json');
    await failed;

    const scraped = await get(scrapeUrl, { authorization: `Bearer ${TOKEN}` });
    expect(scraped.status).toBe(200);
    const text = scraped.body;
    const requests = (route: string, status: string, method = 'GET') =>
      sample(text, 'tariff_http_requests_total', { route, method, status });
    expect(requests('/v1/dataset.json.gz', '200')).toBe(1);
    expect(requests('/v1/dataset.json.gz', '304')).toBe(1);
    expect(requests('/v1/version', '200')).toBe(8);
    expect(requests('/v1/version', '429')).toBe(1);
    expect(requests('/v1/version', '401')).toBe(1);
    expect(requests('/accedi', '429', 'POST')).toBe(1);
    expect(sample(text, 'tariff_http_request_duration_seconds_count', { route: '/v1/version' })).toBe(10);
    expect(sample(text, 'tariff_reads_spent_total')).toBe(10);
    expect(sample(text, 'tariff_quota_refusals_total', { counter: 'read' })).toBe(1);
    expect(sample(text, 'tariff_downloads_total', { format: 'json', status: '200' })).toBe(1);
    expect(sample(text, 'tariff_downloads_total', { format: 'json', status: '304' })).toBe(1);
    expect(sample(text, 'tariff_download_bytes_total', { format: 'json' })).toBe(json.size);
    expect(sample(text, 'tariff_access_refused_total', { purpose: 'sign-in', reason: 'rate_limited' })).toBe(1);
    expect(sample(text, 'tariff_access_refused_total', { purpose: 'sign-in', reason: 'invalid_link' })).toBe(1);
    // The rolled-back release is what is served, its age and its signature's time left counted on the service's clock.
    expect(sample(text, 'tariff_release_info', { version: '20260722.1' })).toBe(1);
    expect(sample(text, 'tariff_release_info', { version: '20260801.1' })).toBeUndefined();
    expect(sample(text, 'tariff_release_age_seconds')).toBe((NOW.getTime() - Date.parse(served.generatedAt)) / 1000);
    expect(sample(text, 'tariff_manifest_signature_expires_in_seconds')).toBe((Date.parse(served.expires) - NOW.getTime()) / 1000);
    expect(sample(text, 'tariff_release_stale')).toBe(0);
    expect(sample(text, 'tariff_bucket_read_failures_total', { what: 'manifest' })).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'tariff_registry_pool_connections', { state: 'in_use' })).toBe(0);
    expect(sample(text, 'tariff_registry_pool_connections', { state: 'waiting' })).toBe(0);
  });

  it('adds up the counts of two workers, on the primary, and takes one release', async () => {
    service = await startServe(['serve', '--data-dir', dataDir, '--workers', '2'], { TARIFF_METRICS_PORT: '0' });
    const scrapeUrl = await metricsUrl(service);
    // A connection each: the cluster hands them to the workers in turn.
    for (let i = 0; i < 6; i++) expect((await get(`${service.url}/healthz`)).status).toBe(200);
    const text = (await get(scrapeUrl)).body;
    expect(sample(text, 'tariff_http_requests_total', { route: '/healthz', method: 'GET', status: '200' })).toBe(6);
    // A gauge of the release is the workers' worst, not their sum.
    expect(sample(text, 'tariff_release_info', { version: '20260801.1' })).toBe(1);
  });

  it('is off unless a port is named, and refuses an address beyond this machine without a token', async () => {
    service = await serveInProcess(dataDir);
    expect(service.log.some((entry) => entry.event === 'metrics.listening')).toBe(false);
    const refused = await cli(['serve', '--port', '0'], { TARIFF_METRICS_PORT: '0', TARIFF_METRICS_HOST: '0.0.0.0' });
    expect(refused.status).toBe(2);
    expect(refused.stderr).toContain('metricsHost 0.0.0.0 would expose /metrics beyond this machine without a token');
  });
});
