import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync, existsSync, readdirSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { REPO, runCli } from '../helpers/run-cli.ts';
import { startS3, type S3Stand } from '../helpers/s3-server.ts';
import { serveInProcess } from '../helpers/serve-in-process.ts';
import { startServe, type RunningServe } from '../helpers/serve-process.ts';
import { TcpProxy } from '../helpers/tcp-proxy.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import { waitFor } from '../helpers/wait-for.ts';
import { bucketKeyPath, readBucketJson } from '../helpers/bucket-folder.ts';
import { describeLocal, describeS3 } from '../helpers/s3-step.ts';

const SAMPLE = join(REPO, 'fixtures/sample');
// Short S3 bounds, so a partition is met in seconds, not minutes.
const QUICK_S3 = {
  TARIFF_S3_CONNECT_TIMEOUT_MS: '500',
  TARIFF_S3_IDLE_TIMEOUT_MS: '500',
  TARIFF_S3_DEADLINE_SECONDS: '2',
  TARIFF_S3_ATTEMPTS: '1',
};
// One try each, at the usual bounds: a store that answers says what is wrong at once, however busy.
const ONE_TRY = { TARIFF_S3_ATTEMPTS: '1' };

let dataDir: string;
let service: RunningServe | null = null;
const cleanups: (() => Promise<unknown>)[] = [];
beforeEach(async () => {
  dataDir = await tempDir();
});
afterEach(async () => {
  await service?.stop();
  service = null;
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

const cli = (args: string[], env: Record<string, string> = {}) => runCli([...args, '--data-dir', dataDir], { env });
/** Builds the sample for a day into its own folder (barcodes left out one by one, so each build differs). */
async function build(name: string, date = '2026-11-22', previous?: string) {
  const out = join(dataDir, 'build', name);
  const result = await cli([
    'build',
    '--source',
    join(SAMPLE, 'tariff'),
    '--date',
    date,
    '--out',
    out,
    ...(previous ? ['--previous', previous] : []),
  ]);
  expect(result.status).toBe(0);
  return out;
}
async function account() {
  await cli(['accounts', 'create', 'shop@example.it', '--type', 'User']);
  return JSON.parse((await cli(['keys', 'create', 'shop@example.it', '--json'])).stdout).key as string;
}
const flipByte = (path: string) => {
  const bytes = readFileSync(path);
  bytes[bytes.length >> 1]! ^= 0xff;
  writeFileSync(path, bytes);
};

describeS3('S3 that does not answer, or answers errors', () => {
  let s3: S3Stand;
  let proxy: TcpProxy;
  beforeEach(async () => {
    s3 = await startS3();
    proxy = await new TcpProxy({ host: '127.0.0.1', port: Number(new URL(s3.endpoint).port) }).start();
    cleanups.push(
      () => proxy.close(),
      () => s3.close(),
    );
  });
  const through = () => ({ ...s3.env, ...QUICK_S3, AWS_ENDPOINT_URL_S3: proxy.url });

  it('publish ends with bucket_failed after the silence limit, not a hang, when the store accepts and never answers', async () => {
    const out = await build('a');
    proxy.blackhole();
    const result = await cli(['publish', out, '--bucket', `s3://${s3.bucket}/p`, '--json'], through());
    expect(result.status).toBe(1);
    expect(JSON.parse(result.stdout).error).toMatchObject({
      code: 'bucket_failed',
      message: expect.stringMatching(new RegExp(`^s3://${s3.bucket}/p/.*the store went silent for 500 ms \\(TARIFF_S3_IDLE_TIMEOUT_MS\\)`)),
    });
  });

  it('serve keeps polling through a partition: /healthz says stale and since when, then recovers and follows a new release', async () => {
    const bucket = `s3://${s3.bucket}/serve`;
    const first = await build('first');
    // Straight to the store: only the service meets the partition.
    expect((await cli(['publish', first, '--bucket', bucket], s3.env)).status).toBe(0);
    service = await serveInProcess(dataDir, {
      TARIFF_BUCKET: bucket,
      ...through(),
      // Bounds a busy store answers within (a read of RGW under every other S3 file took over 500 ms), a partition soon passes.
      TARIFF_S3_IDLE_TIMEOUT_MS: '3000',
      TARIFF_S3_DEADLINE_SECONDS: '6',
      TARIFF_MANIFEST_POLL_MS: '200',
      TARIFF_STALE_AFTER_SECONDS: '10',
    });
    const health = async () => {
      const response = await fetch(`${service!.url}/healthz`);
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };
    expect(await health()).toMatchObject({ status: 200, body: { status: 'ok', release: '20261101.1' } });

    proxy.blackhole();
    // Stale counts from the last good refresh: it comes while the read still hangs, and the failure once it times out.
    await waitFor(async () => (await health()).status === 503, '/healthz to report stale');
    await waitFor(async () => (await health()).body.problem !== null, 'the hung read to fail');
    const stale = await health();
    expect(stale.body).toMatchObject({
      status: 'stale',
      release: '20261101.1',
      failingSince: expect.any(String),
      problem: expect.stringMatching(/no answer|went silent|ETIMEDOUT|timed out|socket|ECONNRESET/i),
    });
    await service.logged((entry) => entry.event === 'release.refresh_failed');

    proxy.heal();
    await waitFor(async () => (await health()).status === 200, '/healthz to recover');
    const second = await build('second', '2026-12-01');
    expect((await cli(['publish', second, '--bucket', bucket], s3.env)).status).toBe(0);
    await waitFor(async () => (await health()).body.release === '20261201.1', 'serve to follow the new release');
  });

  it('says what to do, without a stack trace, for a missing bucket, wrong credentials and a refused connection', async () => {
    const missing = await cli(['releases', '--bucket', 's3://no-such-bucket/x', '--json'], { ...s3.env, ...ONE_TRY });
    expect(missing.status).toBe(1);
    expect(JSON.parse(missing.stdout).error).toMatchObject({
      code: 'bucket_failed',
      message: expect.stringContaining('NoSuchBucket'),
      hint: expect.stringContaining('does not exist'),
    });

    // s3rver takes any key: a store that refuses it answers as S3 does, 403 InvalidAccessKeyId.
    const refusing = createServer((_, response) => {
      response
        .writeHead(403, { 'content-type': 'application/xml' })
        .end(
          '<?xml version="1.0" encoding="UTF-8"?><Error><Code>InvalidAccessKeyId</Code><Message>The AWS Access Key Id you provided does not exist in our records.</Message></Error>',
        );
    });
    await new Promise<void>((resolve) => refusing.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => refusing.close(resolve)));
    const wrongKey = await cli(['releases', '--bucket', `s3://${s3.bucket}/x`], {
      ...s3.env,
      ...ONE_TRY,
      AWS_ENDPOINT_URL_S3: `http://127.0.0.1:${(refusing.address() as AddressInfo).port}`,
    });
    expect(wrongKey.status).toBe(1);
    expect(wrongKey.stderr).toMatch(/InvalidAccessKeyId/);
    expect(wrongKey.stderr).toContain('AWS_ACCESS_KEY_ID');
    expect(wrongKey.stderr).not.toMatch(/This is a bug|\n\s+at /);

    await proxy.close();
    const refused = await cli(['releases', '--bucket', `s3://${s3.bucket}/x`], {
      ...s3.env,
      ...ONE_TRY,
      AWS_ENDPOINT_URL_S3: 'http://127.0.0.1:1',
    });
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain('AWS_ENDPOINT_URL');
    expect(refused.stderr).not.toMatch(/This is a bug|\n\s+at /);

    // serve does not start "healthy with no release" on a bucket that does not exist.
    await expect(
      startServe(['serve', '--data-dir', dataDir, '--bucket', 's3://no-such-bucket/x'], { ...s3.env, ...ONE_TRY }),
    ).rejects.toThrow(/NoSuchBucket/);
  });
});

describeLocal('a corrupt release in the bucket', () => {
  it('is never streamed whole under the manifest ETag', async () => {
    const key = await account();
    expect((await cli(['publish', await build('a')])).status).toBe(0);
    service = await serveInProcess(dataDir, { TARIFF_CACHE_BYTES: '1' });
    const file = join(dataDir, 'bucket', 'releases', '20261101.1', 'dataset.json.gz');
    const good = await fetch(`${service.url}/v1/dataset.json.gz`, { headers: { authorization: `Bearer ${key}` } });
    const etag = good.headers.get('etag')!;
    expect(
      createHash('sha256')
        .update(Buffer.from(await good.arrayBuffer()))
        .digest('hex'),
    ).toBe(etag.slice(1, -1));

    flipByte(file);
    // Either the download breaks (before or during the body), or what arrives is the manifest's
    // file: never other bytes under its ETag.
    const received = await fetch(`${service.url}/v1/dataset.json.gz`, { headers: { authorization: `Bearer ${key}` } })
      .then(async (response) => ({
        length: Number(response.headers.get('content-length')),
        body: Buffer.from(await response.arrayBuffer()),
      }))
      .catch(() => null);
    if (received && received.body.length === received.length)
      expect(createHash('sha256').update(received.body).digest('hex')).toBe(etag.slice(1, -1));
    await service!.logged((entry) => entry.event === 'release.file_corrupt');
  });

  it('answers 503 before any header when a streamed file is shorter than its manifest says, and never rolls back to an incomplete version', async () => {
    const key = await account();
    expect((await cli(['publish', await build('a')])).status).toBe(0);
    service = await serveInProcess(dataDir, { TARIFF_CACHE_BYTES: '1' });
    const file = join(dataDir, 'bucket', 'releases', '20261101.1', 'dataset.json.gz');
    writeFileSync(file, readFileSync(file).subarray(0, 100));
    const short = await fetch(`${service.url}/v1/dataset.json.gz`, { headers: { authorization: `Bearer ${key}` } });
    expect(short.status).toBe(503);
    expect(await short.json()).toMatchObject({ error: 'release_unavailable' });
    await waitFor(
      () => service!.log.some((entry) => entry.event === 'release.file_corrupt' && entry.size === 100),
      'the short file in the log',
    );

    rmSync(file);
    const rollback = await cli(['rollback', '20261101.1']);
    expect(rollback.status).toBe(1);
    expect(rollback.stderr).toContain('version 20261101.1 is not kept in the bucket');
    expect(rollback.stderr).not.toContain('after upload');
  });

  it('is found by verify --bucket, repaired by publish, and not served: serve falls back to the newest valid release', async () => {
    const key = await account();
    const first = await build('first');
    const second = await build('second', '2026-12-01', first);
    expect((await cli(['publish', first])).status).toBe(0);
    expect((await cli(['publish', second])).status).toBe(0);
    flipByte(join(dataDir, 'bucket', 'releases', '20261201.1', 'dataset.sqlite.gz'));

    const verify = await cli(['verify', '--bucket', join(dataDir, 'bucket')]);
    expect(verify.status).toBe(1);
    expect(verify.stderr).toMatch(/dataset\.sqlite\.gz/);
    // A bucket's copy is repaired, not rebuilt: the hint says so.
    expect(verify.stderr).toContain('publish the release again from its local copy');
    expect(verify.stderr).not.toContain('Rebuild the release');
    expect((await cli(['verify', '--bucket', join(dataDir, 'bucket'), '20261101.1'])).status).toBe(0);
    // A version the bucket does not keep: its path, with the bucket's, whole.
    expect((await cli(['verify', '--bucket', join(dataDir, 'bucket'), '20251101.1'])).stderr).toContain(
      `${join(dataDir, 'bucket')}/releases/20251101.1/`,
    );

    service = await serveInProcess(dataDir);
    const version = await fetch(`${service.url}/v1/version`, { headers: { authorization: `Bearer ${key}` } });
    expect(((await version.json()) as { version: string }).version).toBe('20261101.1');
    expect(service.log.find((entry) => entry.event === 'release.fallback')).toMatchObject({
      level: 'error',
      current: '20261201.1',
      serving: '20261101.1',
    });
    expect(await (await fetch(`${service.url}/healthz`)).json()).toMatchObject({ fallback: true, release: '20261101.1' });
    await service.stop();
    service = null;

    const repair = await cli(['publish', second, '--json']);
    expect(repair.status).toBe(0);
    expect(JSON.parse(repair.stdout)).toMatchObject({
      status: 'repaired',
      version: '20261201.1',
      repaired: [expect.stringContaining('dataset.sqlite.gz')],
    });
    expect((await cli(['verify', '--bucket', join(dataDir, 'bucket')])).status).toBe(0);
    expect(JSON.parse((await cli(['publish', second, '--json'])).stdout).status).toBe('already-current');
  });
});

describeLocal('what crashed runs leave behind', () => {
  it('lists only whole releases, and the next publish removes and reports the incomplete ones', async () => {
    const first = await build('first');
    expect((await cli(['publish', first])).status).toBe(0);
    const bucket = join(dataDir, 'bucket', 'releases');
    // A kill during an upload: files of a version, no manifest. A kill during a prune: a manifest without files.
    mkdirSync(join(bucket, '20261122.7'));
    writeFileSync(join(bucket, '20261122.7', 'dataset.json.gz'), 'partial');
    mkdirSync(join(bucket, '20261020.1'));
    writeFileSync(join(bucket, '20261020.1', 'manifest.json'), readFileSync(join(first, 'manifest.json')));
    const listing = JSON.parse((await cli(['releases', '--json'])).stdout);
    expect(listing).toMatchObject({ versions: ['20261101.1'], incomplete: ['20261020.1', '20261122.7'] });
    const rollback = await cli(['rollback', '20261122.7']);
    expect(rollback.status).toBe(1);
    expect(rollback.stderr).toContain('is not kept in the bucket (kept: 20261101.1)');

    const second = await build('second', '2026-12-01', first);
    const published = JSON.parse((await cli(['publish', second, '--json'])).stdout);
    expect(published.cleaned).toEqual(['20261020.1', '20261122.7']);
    // Marked, not removed: a writer paused in the middle of its upload may still finish it.
    expect(readdirSync(bucket).sort()).toEqual(['20261020.1', '20261101.1', '20261122.7', '20261201.1']);
    // Once the retention has passed, the next run removes them, whatever it had to publish.
    const swept = await cli(['publish', second], { TARIFF_RETENTION_HOURS: '0' });
    expect(swept.status, swept.stderr).toBe(0);
    expect(swept.stderr).toContain('prune: removed releases/20261020.1/, releases/20261122.7/ (marked more than 0 h ago)');
    expect(readdirSync(bucket).sort()).toEqual(['20261101.1', '20261201.1']);
  });

  it('release removes old temporary files and half-built folders, and says so', async () => {
    mkdirSync(join(dataDir, 'releases', '.20261101.1.building-abc123'), { recursive: true });
    mkdirSync(join(dataDir, 'snapshots'), { recursive: true });
    writeFileSync(join(dataDir, 'snapshots', '.sources.json.1a2b3c.tmp'), 'half');
    writeFileSync(join(dataDir, 'snapshots', '.fresh.json.4d5e6f.tmp'), 'a run still writing');
    // Two hours before now by the file system's clock (the one that dates files), not this process's.
    const stale = new Date(statSync(join(dataDir, 'snapshots', '.fresh.json.4d5e6f.tmp')).mtimeMs - 2 * 3600_000);
    utimesSync(join(dataDir, 'releases', '.20261101.1.building-abc123'), stale, stale);
    utimesSync(join(dataDir, 'snapshots', '.sources.json.1a2b3c.tmp'), stale, stale);
    const result = await cli(['release', '--source-url', 'http://127.0.0.1:1/none.xml'], {
      TARIFF_FETCH_ATTEMPTS: '1',
    });
    expect(result.stderr).toContain('removed');
    expect(result.stderr).toContain('.20261101.1.building-abc123, left by an interrupted run');
    expect(existsSync(join(dataDir, 'releases', '.20261101.1.building-abc123'))).toBe(false);
    expect(existsSync(join(dataDir, 'snapshots', '.sources.json.1a2b3c.tmp'))).toBe(false);
    expect(existsSync(join(dataDir, 'snapshots', '.fresh.json.4d5e6f.tmp'))).toBe(true);
  });

  it('build puts back a release folder whose replacement was cut short between its two renames', async () => {
    const out = await build('release');
    const manifest = readFileSync(join(out, 'manifest.json'), 'utf8');
    // The state a kill -9 between the renames leaves: the old release aside, the new one built beside it.
    renameSync(out, join(dataDir, 'build', '.release.building-x1y2z3.replaced'));
    mkdirSync(join(dataDir, 'build', '.release.building-x1y2z3'));
    const again = await cli(['build', '--source', join(SAMPLE, 'tariff'), '--date', '2026-11-22', '--previous', out, '--out', out]);
    expect(again.status).toBe(0);
    expect(again.stderr).toContain(`recovered ${out}`);
    // The old release was back before the build: the same content, so the same version, not a new .2.
    expect(again.stdout.trim()).toBe(JSON.parse(manifest).version);
    expect(readFileSync(join(out, 'manifest.json'), 'utf8')).toBe(manifest);
    rmSync(join(dataDir, 'build', '.release.building-x1y2z3'), { recursive: true, force: true });
  });
});

describeLocal('verify --bucket sees what a reader would trip on', () => {
  it('the current release without its own manifest, a history that does not match its digest, a key list that does not parse: each named, exit 1', async () => {
    const first = await build('first');
    expect((await cli(['publish', first])).status).toBe(0);
    const bucket = join(dataDir, 'bucket');
    expect((await cli(['verify', '--bucket', bucket])).status).toBe(0);

    rmSync(join(bucket, 'releases/20261101.1/manifest.json'));
    // The history's segment: the file of the log the last release run wrote.
    const historyFile = join(bucket, 'history', readBucketJson(bucket, 'history/manifest.json').segments.at(-1).file);
    flipByte(historyFile);
    writeFileSync(bucketKeyPath(bucket, 'keys.json'), '{"keys": "damaged"');
    const verified = await cli(['verify', '--bucket', bucket]);
    expect(verified.status).toBe(1);
    expect(verified.stderr).toContain(
      `releases/20261101.1/manifest.json is missing: current.json names a release the bucket does not keep`,
    );
    expect(verified.stderr).toMatch(
      /segment-[0-9a-f]{64}\.json\.gz: not a readable price history: its SHA-256 is not the [0-9a-f]{64} its manifest names/,
    );
    expect(verified.stderr).toContain('keys.json: the key list in the bucket is not valid');
  });
});
