import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { HeadObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { leaseHeld, LEASE_KEY } from '../../src/publish/bucket-lease.ts';
import { collectGarbage } from '../../src/pipeline/bucket-garbage.ts';
import { createOnce, readMarks } from '../../src/storage/deferred-deletions.ts';
import { S3Bucket } from '../../src/storage/s3-bucket.ts';
import { sha256Hex } from '../../src/util/digests.ts';
import { TEST_BACKUP_RECIPIENT } from '../helpers/backup-key.ts';
import { onDay, REPO, runCli } from '../helpers/run-cli.ts';
import { startIgnoringS3, startS3, type S3Stand } from '../helpers/s3-server.ts';
import { AuthorityServer } from '../helpers/authority-server.ts';
import { tempDir } from '../helpers/temp-dir.ts';

/**
 * The product on Ceph's RADOS Gateway 16 from Debian, a store nobody on the project wrote, with
 * nothing between them: its quirk (If-Match refused with the quoted tag AWS's SDK sends) met and
 * handled, and a writer whose answer was lost in the network recognising its own write.
 */
const CIGARETTES = join(REPO, 'fixtures/sample/tariff/sigarette-2026-11-01.xml');
const ARCHIVED = join(REPO, 'fixtures/adm/listino-sigari-2023-10-31.pdf');
const LIQUIDS = join(REPO, 'fixtures/adm/listino-liquidi-2026-11-01.pdf');
const DAY = '2026-11-22';

let s3: S3Stand;
let authority: AuthorityServer;
beforeAll(async () => {
  [s3, authority] = await Promise.all([startS3(), new AuthorityServer().start()]);
  authority.lists.set('/sigarette.xml', { body: readFileSync(CIGARETTES) });
});
afterAll(async () => {
  await authority?.close();
  await s3?.close();
});

const barcodes = (dir: string, n: number) => {
  const body = `800100${String(n).padStart(6, '0')}`;
  const sum = [...body].reduce((total, digit, i) => total + Number(digit) * (i % 2 === 0 ? 1 : 3), 0);
  const path = join(dir, `barcodes-${n}.csv`);
  writeFileSync(path, `barcode,admCode,kind,units\n${body}${(10 - (sum % 10)) % 10},1001,pack,1\n`);
  return path;
};

/** A machine: its data dir, and the commands it runs against `prefix` of the stand's bucket. */
async function machine(prefix: string, env: Record<string, string> = {}) {
  const dataDir = await tempDir();
  const uri = `s3://${s3.bucket}/${prefix}`;
  const cli = (args: string[], extra: Record<string, string> = {}) =>
    runCli([...args, '--data-dir', dataDir], {
      env: { ...s3.env, ...onDay(DAY), TARIFF_BUCKET: uri, TARIFF_SOURCE_URLS: authority.url('/sigarette.xml'), ...env, ...extra },
    });
  const build = async (n: number, previous?: string) => {
    const out = join(dataDir, `build-${n}`);
    const args = ['build', '--source', CIGARETTES, '--barcodes', barcodes(dataDir, n), '--date', DAY, '--out', out];
    const built = await cli([...args, ...(previous ? ['--previous', previous] : [])]);
    expect(built.status, built.stderr).toBe(0);
    return out;
  };
  const raw = new S3Bucket({ bucket: s3.bucket, prefix, env: s3.env, pathStyle: true });
  const json = async (key: string) => JSON.parse((await raw.get(key))!.toString()) as Record<string, unknown>;
  return { dataDir, uri, cli, build, raw, json };
}

describe('Ceph RGW 16, nothing between the product and the store', () => {
  it('two publishes in a row, a rollback, signing keys created and retired, a history import, a registry backup and a release: all succeed, the bucket verifying', async () => {
    const m = await machine('whole');
    const first = await m.build(1);
    const second = await m.build(2, first);
    const key = JSON.parse((await m.cli(['signing-key', 'create', '--json'])).stdout) as { keyId: string; file: string };
    const spare = await m.cli(['signing-key', 'create', '--json']);
    expect(spare.status, spare.stderr).toBe(0);
    const signed = { TARIFF_SIGNING_KEY: key.file };
    for (const folder of [first, second]) {
      const published = await m.cli(['publish', folder], signed);
      expect(published.status, published.stderr).toBe(0);
      // The store honours every condition: no warning that it ignores them.
      expect(published.stderr).not.toContain('warning');
    }
    expect((await m.json('current.json')).version).toBe('20261101.2');
    const rollback = await m.cli(['rollback', '20261101.1'], signed);
    expect(rollback.status, rollback.stderr).toBe(0);
    expect((await m.json('current.json')).version).toBe('20261101.1');
    const retired = await m.cli(['signing-key', 'retire', JSON.parse(spare.stdout).keyId]);
    expect(retired.status, retired.stderr).toBe(0);
    const imported = await m.cli(['history', 'import', ARCHIVED]);
    expect(imported.status, imported.stderr).toBe(0);
    await m.cli(['accounts', 'create', 'cassa@example.it', '--type', 'User']);
    const backup = await m.cli(['registry', 'backup', '--to', m.uri], { TARIFF_BACKUP_RECIPIENTS: TEST_BACKUP_RECIPIENT });
    expect(backup.status, backup.stderr).toBe(0);
    const release = await m.cli(['release', '--barcodes', barcodes(m.dataDir, 3)], signed);
    expect(release.status, release.stderr).toBe(0);
    expect((await m.json('current.json')).version).toBe('20261101.3');
    const verified = await m.cli(['verify', '--bucket', m.uri]);
    expect(verified.status, verified.stderr).toBe(0);
    expect(leaseHeld(await m.raw.get(LEASE_KEY))).toBe(false);
  });
});

describe('a lost answer on Ceph RGW: the writer recognises its own write', () => {
  /** `command` through a proxy that loses the store's answer to its first write request `line` matches (the SDK tries again). */
  async function losingAnswer(m: Awaited<ReturnType<typeof machine>>, line: RegExp, args: string[], extra: Record<string, string> = {}) {
    const proxy = await s3.proxy();
    const lost = proxy.holdWrite((request) => line.test(request), 'answer lost');
    // The retry is let go as soon as it comes: nothing else happens meanwhile.
    void lost.held.then(() => lost.release());
    const result = await m.cli(args, { AWS_ENDPOINT_URL_S3: proxy.url, ...extra });
    expect(await lost.held.then(() => true), `${line} was written`).toBe(true);
    return { result, proxy };
  }

  it('publish whose switch landed but whose answer was lost: exit 0, its release current and its history recorded', async () => {
    const m = await machine('lost-switch');
    const first = await m.build(1);
    expect((await m.cli(['publish', first])).status).toBe(0);
    const second = await m.build(2, first);
    const { result, proxy } = await losingAnswer(m, /^PUT current\.json If-Match/, ['publish', second]);
    expect(result.status, result.stderr).toBe(0);
    expect(proxy.refused, 'the retry met the run’s own object').toBeGreaterThan(0);
    expect((await m.json('current.json')).version).toBe('20261101.2');
    expect((await m.json('history/manifest.json')).release).toBe('20261101.2');
    expect((await m.cli(['verify', '--bucket', m.uri])).status).toBe(0);
  });

  it('rollback whose switch answer was lost: exit 0, the release it named current', async () => {
    const m = await machine('lost-rollback');
    const first = await m.build(1);
    const second = await m.build(2, first);
    for (const folder of [first, second]) expect((await m.cli(['publish', folder])).status).toBe(0);
    const { result } = await losingAnswer(m, /^PUT current\.json If-Match/, ['rollback', '20261101.1']);
    expect(result.status, result.stderr).toBe(0);
    expect((await m.json('current.json')).version).toBe('20261101.1');
  });

  it('signing-key create whose key list answer was lost: exit 0, the key listed, its private key kept', async () => {
    const m = await machine('lost-keys');
    expect((await m.cli(['signing-key', 'create'])).status).toBe(0);
    const out = join(m.dataDir, 'new-key.pem');
    const { result } = await losingAnswer(m, /^PUT keys\.json If-Match/, ['signing-key', 'create', '--out', out, '--json']);
    expect(result.status, result.stderr).toBe(0);
    const { keyId } = JSON.parse(result.stdout) as { keyId: string };
    expect(((await m.json('keys.json')).keys as { keyId: string }[]).map((key) => key.keyId)).toContain(keyId);
    expect(existsSync(out)).toBe(true);
  });

  it('history import whose manifest answer was lost: exit 0, the import in the history', async () => {
    const m = await machine('lost-history');
    const { result } = await losingAnswer(m, /^PUT history\/manifest\.json/, ['history', 'import', ARCHIVED]);
    expect(result.status, result.stderr).toBe(0);
    const imports = (await m.json('history/manifest.json')).imports as string[];
    expect(imports.some((key) => key.includes(sha256Hex(readFileSync(ARCHIVED))))).toBe(true);
  });

  it('history import whose swap landed, its answer coming only after its lease was gone: exit 0, said so, the import in the history', async () => {
    const m = await machine('late-history');
    // A history there already: the import replaces its file, and its clean-up marks the old one (a write).
    expect((await m.cli(['history', 'import', LIQUIDS])).status).toBe(0);
    const proxy = await s3.proxy();
    const held = proxy.holdWrite((line) => line.startsWith('PUT history/manifest.json'), 'answer held');
    const importing = m.cli(['history', 'import', ARCHIVED], { AWS_ENDPOINT_URL_S3: proxy.url, TARIFF_S3_IDLE_TIMEOUT_MS: '600000' });
    expect(await held.held).toMatch(/^PUT history\/manifest\.json/);
    // Its lease is gone while the answer is on its way (taken over by a writer that has finished since).
    await m.raw.delete([LEASE_KEY]);
    held.release();
    const result = await importing;
    expect(result.status, result.stderr).toBe(0);
    expect(result.stderr).toContain('the import is in the price history of');
    expect(result.stderr).toContain('removing what it replaced was left to the next writer (bucket_lease_lost');
    const imports = (await m.json('history/manifest.json')).imports as string[];
    expect(imports.some((key) => key.includes(sha256Hex(readFileSync(ARCHIVED))))).toBe(true);
  });

  it('signing-key create refused by another writer’s key leaves no private key, and runs again as its hint says', async () => {
    const m = await machine('refused-key');
    expect((await m.cli(['signing-key', 'create'])).status).toBe(0);
    const proxy = await s3.proxy();
    const held = proxy.holdWrite((line) => line.startsWith('PUT keys.json'), 'request held');
    const out = join(m.dataDir, 'refused.pem');
    const creating = m.cli(['signing-key', 'create', '--out', out], {
      AWS_ENDPOINT_URL_S3: proxy.url,
      TARIFF_S3_IDLE_TIMEOUT_MS: '600000',
    });
    await held.held;
    // Another machine adds its key while A's write is on its way (A's lease gone meanwhile).
    await m.raw.delete([LEASE_KEY]);
    const other = await machine('refused-key');
    expect((await other.cli(['signing-key', 'create'])).status).toBe(0);
    held.release();
    const refused = await creating;
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain('keys.json changed since this run read it: another writer changed the key list meanwhile');
    expect(existsSync(out), 'no private key of a key nobody lists').toBe(false);
    const again = await m.cli(['signing-key', 'create', '--out', out]);
    expect(again.status, again.stderr).toBe(0);
    expect(existsSync(out)).toBe(true);
    expect((await m.json('keys.json')).keys).toHaveLength(3);
  });
});

/**
 * A store in front of `endpoint` that answers some requests itself (`answer` says how, or null to
 * pass the request on): a store of another kind, made of a real one.
 */
async function storeInFront(
  endpoint: string,
  answer: (method: string, headers: Record<string, unknown>, bucket: string, key: string) => Promise<number | null>,
) {
  const upstream = new URL(endpoint);
  const server = createServer(async (incoming, outgoing) => {
    const chunks: Buffer[] = [];
    for await (const chunk of incoming) chunks.push(chunk as Buffer);
    const [, bucket, ...key] = (incoming.url ?? '/').split('?')[0]!.split('/');
    const status = await answer(incoming.method ?? 'GET', incoming.headers, bucket!, decodeURIComponent(key.join('/')));
    if (status !== null)
      return void outgoing.writeHead(status, { 'content-type': 'application/xml' }).end('<Error><Code>PreconditionFailed</Code></Error>');
    const out = request(
      { host: upstream.hostname, port: upstream.port, method: incoming.method, path: incoming.url, headers: incoming.headers },
      (response) => {
        outgoing.writeHead(response.statusCode!, response.headers);
        response.pipe(outgoing);
      },
    );
    out.end(Buffer.concat(chunks));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() };
}

/** A publish of a fresh build to `uri` through `endpoint`: its --json result. */
async function publishThrough(env: Record<string, string>, endpoint: string, uri: string) {
  const dataDir = await tempDir();
  const out = join(dataDir, 'build');
  expect((await runCli(['build', '--source', CIGARETTES, '--date', DAY, '--out', out, '--data-dir', dataDir])).status).toBe(0);
  return runCli(['publish', out, '--bucket', uri, '--data-dir', dataDir, '--json'], { env: { ...env, AWS_ENDPOINT_URL_S3: endpoint } });
}

describe('a store without compare-and-swap is named at start, before any write', () => {
  it('one that honours If-None-Match but not If-Match: bucket_unsupported, exit 1, nothing left in the bucket', async () => {
    // s3rver ignores both conditions; in front of it, If-None-Match is honoured.
    const ignoring = await startIgnoringS3();
    const client = new S3Client({
      endpoint: ignoring.endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: ignoring.credentials.AWS_ACCESS_KEY_ID, secretAccessKey: ignoring.credentials.AWS_SECRET_ACCESS_KEY },
    });
    const halfway = await storeInFront(ignoring.endpoint, async (method, headers, bucket, key) => {
      if (method !== 'PUT' || headers['if-none-match'] !== '*') return null;
      const exists = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: key })).then(
        () => true,
        () => false,
      );
      return exists ? 412 : null;
    });
    try {
      const uri = `s3://${ignoring.bucket}/halfway`;
      const published = await publishThrough(ignoring.env, halfway.url, uri);
      expect(published.status).toBe(1);
      expect(JSON.parse(published.stdout).error).toMatchObject({
        code: 'bucket_unsupported',
        message: `${uri}/${LEASE_KEY}: the store honours If-None-Match but not If-Match (it wrote over an object whose entity tag the write did not name): compare-and-swap cannot work on it, so nothing was written`,
      });
      const raw = new S3Bucket({ bucket: ignoring.bucket, prefix: 'halfway', env: ignoring.env, pathStyle: true });
      expect(await raw.list('')).toEqual([]);
    } finally {
      halfway.close();
      client.destroy();
      await ignoring.close();
    }
  });

  it('one that refuses If-Match with the object’s own tag, quoted and bare: bucket_unsupported, nothing left in the bucket', async () => {
    const refusing = await storeInFront(s3.endpoint, async (method, headers) => (method === 'PUT' && headers['if-match'] ? 412 : null));
    try {
      const uri = `s3://${s3.bucket}/refusing`;
      const published = await publishThrough(s3.env, refusing.url, uri);
      expect(published.status).toBe(1);
      expect(JSON.parse(published.stdout).error).toMatchObject({
        code: 'bucket_unsupported',
        message: `${uri}/${LEASE_KEY}: the store refuses If-Match with the object's own entity tag, quoted and bare alike: compare-and-swap cannot work on it, so nothing was written`,
      });
      const raw = new S3Bucket({ bucket: s3.bucket, prefix: 'refusing', env: s3.env, pathStyle: true });
      expect(await raw.list('')).toEqual([]);
    } finally {
      refusing.close();
    }
  });
});
describe('a create on Ceph RGW that meets a marked object with the same bytes', () => {
  it('does not reuse it: the bytes go under a fresh name, and a sweep meanwhile loses nothing', async () => {
    const raw = new S3Bucket({ bucket: s3.bucket, prefix: 'marked-reuse', env: s3.env, pathStyle: true });
    const key = `sources/${'c'.repeat(64)}.pdf`;
    const bytes = Buffer.from('an archived list');
    expect(await raw.create(key, bytes, 'application/pdf')).toBe('written');
    // The store's answer to a create over its own bytes: found, never written.
    expect(await raw.create(key, bytes, 'application/pdf')).toBe('found');
    // Nothing names the document: a sweep marks it, to delete it a retention later.
    const marked = await collectGarbage(raw, { storeNow: new Date(0), retentionMs: 0, by: 'test', keep: 1 });
    expect(marked.marked).toEqual([key]);
    const placed = await createOnce(raw, key, bytes, 'application/pdf', (suffix) => `sources/${'c'.repeat(64)}-${suffix}.pdf`);
    expect(placed).not.toBe(key);
    expect(placed).toMatch(/^sources\/c{64}-[0-9a-f]{8}\.pdf$/);
    // The sweep deletes the marked object (its mark is due), and the fresh copy stays whole.
    const now = (await raw.modified((await readMarks(raw))[0]!.key))!;
    const swept = await collectGarbage(raw, { storeNow: new Date(now.getTime() + 1000), retentionMs: 0, by: 'test', keep: 1 });
    expect(swept.removed).toContain(key);
    expect(await raw.get(placed)).toEqual(bytes);
  });
});
