import { createHash } from 'node:crypto';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manifestSchema, renderManifest, type Manifest } from '../../src/release/manifest.ts';
import { signManifest } from '../../src/release/manifest-signature.ts';
import { generateSigningKey, signerFromPem } from '../../src/release/signing-keys.ts';
import { S3Bucket } from '../../src/storage/s3-bucket.ts';
import { sha256Hex } from '../../src/util/digests.ts';
import { AuthorityServer } from '../helpers/authority-server.ts';
import { REAL_LIST } from '../helpers/real-releases.ts';
import { onDay, REPO, runCli } from '../helpers/run-cli.ts';
import { startS3, type S3Stand } from '../helpers/s3-server.ts';
import { logPosition, startServe, v1RequestsSince, type ServeProcess } from '../helpers/serve-process.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const SAMPLE = join(REPO, 'fixtures/sample/tariff');
const LISTS = ['altri-tabacchi-2026-06-01.xml', 'liquidi-2026-06-01.xml', 'sigarette-2026-11-01.xml', 'sigarette-2026-12-01.xml'];
const NOVEMBER = '20261101.1';
const DECEMBER = '20261201.1';

let s3: S3Stand;
let authority: AuthorityServer;
let service: ServeProcess;
let dataDir: string;
let bucket: S3Bucket;
let bucketUri: string;

beforeAll(async () => {
  // Shared by both tests (tempDir's folders go after each test).
  [s3, authority, dataDir] = await Promise.all([startS3(), new AuthorityServer().start(), mkdtemp(join(tmpdir(), 'tariff-signed-'))]);
  for (const name of LISTS) authority.lists.set(`/${name}`, { body: readFileSync(join(SAMPLE, name)) });
  bucketUri = `s3://${s3.bucket}/signed`;
  // The store itself, for the writes a test makes as an attacker or a disk would (put: unconditional).
  bucket = new S3Bucket({ bucket: s3.bucket, prefix: 'signed', env: s3.env, pathStyle: true });
});
afterAll(async () => {
  await service?.stop();
  await Promise.all([s3?.close(), authority?.close(), rm(dataDir, { recursive: true, force: true })]);
});

const env = (date: string, extra: Record<string, string> = {}) => ({
  ...s3.env,
  TARIFF_BUCKET: bucketUri,
  TARIFF_SOURCE_URLS: LISTS.map((name) => authority.url(`/${name}`)).join(' '),
  ...onDay(date),
  ...extra,
});
const tariff = (args: string[], date: string, extra: Record<string, string> = {}) =>
  runCli([...args, '--data-dir', dataDir], { env: env(date, extra) });

/** A new signing key in the bucket: its private key file and the id:base64 a till pins. */
async function createKey(date: string): Promise<{ file: string; pin: string; keyId: string }> {
  const created = await tariff(['signing-key', 'create', '--json'], date);
  expect(created.status).toBe(0);
  const { file, keyId, publicKey } = JSON.parse(created.stdout);
  return { file, keyId, pin: `${keyId}:${publicKey}` };
}

/** An account of its own (its own quota of reads) and its API key. */
let accounts = 0;
async function apiKey(): Promise<string> {
  const email = `cassa${(accounts += 1)}@example.it`;
  expect((await tariff(['accounts', 'create', email, '--type', 'User'], '2026-11-22')).status).toBe(0);
  return JSON.parse((await tariff(['keys', 'create', email, '--json'], '2026-11-22')).stdout).key;
}

const currentManifest = async (): Promise<Manifest> => manifestSchema.parse(JSON.parse((await bucket.get('current.json'))!.toString()));

/** Writes the bucket's current manifest and waits until the service serves it (an event in its log, no polling). */
async function serveManifest(manifest: Manifest): Promise<void> {
  const from = service.log.length;
  const served = service.logged(
    (entry) => service.log.indexOf(entry) >= from && entry.event === 'release.switch' && entry.version === manifest.version,
  );
  await bucket.put('current.json', Buffer.from(renderManifest(manifest)), 'application/json');
  await served;
}

const requestsSince = (from: number) => v1RequestsSince(service, from);

describe('signed manifests from tariff release to tariff sync, through tariff serve on an S3 bucket', () => {
  let key: { file: string; pin: string; keyId: string };
  let till: { key: string; dest: string };
  const sync = (date: string, options: { pins?: string[]; dest?: string } = {}) =>
    runCli(
      [
        'sync',
        '--api',
        `${service.url}/v1`,
        '--format',
        'json',
        '--dest',
        options.dest ?? till.dest,
        '--public-key',
        ...(options.pins ?? [key.pin]),
      ],
      { env: { ...onDay(date), TARIFF_API_KEY: till.key } },
    );
  const installed = (dest = till.dest) => JSON.parse(readFileSync(join(dest, 'sync-state.json'), 'utf8')).installed?.version ?? null;

  beforeAll(async () => {
    key = await createKey('2026-11-20');
    // The private key is its owner's alone, and never overwritten.
    expect(statSync(key.file).mode & 0o777).toBe(0o600);
    expect(statSync(dirname(key.file)).mode & 0o777).toBe(0o700);
    const again = await tariff(['signing-key', 'create', '--out', key.file], '2026-11-20');
    expect(again).toMatchObject({ status: 2, stdout: '' });
    expect(again.stderr).toContain('the file exists; a key is never overwritten');
    // Once the bucket lists a key in use, publishing unsigned is refused.
    const unsigned = await tariff(['release', '--quiet'], '2026-11-28');
    expect(unsigned.status).toBe(1);
    expect(unsigned.stderr).toContain(`keys.json lists signing key(s) ${key.keyId} in use, and no signing key is configured`);
    expect(await bucket.get('current.json')).toBeNull();

    expect(await tariff(['release', '--quiet'], '2026-11-28', { TARIFF_SIGNING_KEY: key.file })).toMatchObject({
      status: 0,
      stdout: `published ${NOVEMBER} (was none)\n`,
    });
    service = await startServe(['serve', '--data-dir', dataDir, '--bucket', bucketUri], { ...s3.env, TARIFF_MANIFEST_POLL_MS: '100' });
    till = { key: await apiKey(), dest: join(dataDir, 'till') };
  });

  it('installs only the legitimate manifests: refuses a tampered one, another key’s, an expired one and a replay, follows a rollback', async () => {
    // The public keys cost no read; the manifest carries its signature, sequence and expiry.
    const keys = await (await fetch(`${service.url}/.well-known/tariff-keys.json`)).json();
    expect(keys).toEqual({ keys: [expect.objectContaining({ keyId: key.keyId, retiredAt: null })] });
    const november = await currentManifest();
    expect(november).toMatchObject({
      version: NOVEMBER,
      sequence: 1,
      expires: '2026-12-05T11:00:00.000Z',
      signature: { keyId: key.keyId },
    });
    // The release's own manifest stays as built; only the current copy is stamped.
    expect(JSON.parse((await bucket.get(`releases/${NOVEMBER}/manifest.json`))!.toString())).not.toHaveProperty('signature');

    expect((await sync('2026-11-28')).status).toBe(0);
    expect(installed()).toBe(NOVEMBER);

    expect(await tariff(['release', '--quiet'], '2026-12-01', { TARIFF_SIGNING_KEY: key.file })).toMatchObject({
      status: 0,
      stdout: `published ${DECEMBER} (was ${NOVEMBER})\n`,
    });
    const december = await currentManifest();
    expect(december).toMatchObject({ version: DECEMBER, sequence: 2 });
    await service.logged((entry) => entry.event === 'release.switch' && entry.sequence === 2);

    // Tampered: a price changed in the JSON file, its SHA-256 and size rewritten in the manifest (the service serves it: the file matches).
    const original = (await bucket.get(`releases/${DECEMBER}/dataset.json.gz`))!;
    const changed = gzipSync(
      Buffer.from(
        gunzipSync(original)
          .toString()
          .replace(/"pricePerPackCents":(\d+)/, '"pricePerPackCents":1'),
      ),
    );
    const tampered = structuredClone(december);
    tampered.files.json = { ...tampered.files.json, sha256: sha256Hex(changed), size: changed.length };
    await bucket.put(`releases/${DECEMBER}/dataset.json.gz`, changed, 'application/gzip');
    await serveManifest(tampered);
    await expectRefused('2026-12-01', 'bad_signature', 'does not match its content');

    // Signed by a key the till does not trust.
    const other = generateSigningKey(new Date('2026-12-01T00:00:00Z'));
    await bucket.put(`releases/${DECEMBER}/dataset.json.gz`, original, 'application/gzip');
    await serveManifest(
      signManifest(december, signerFromPem(other.privatePem), { sequence: 9, expires: new Date('2026-12-20T00:00:00Z') }),
    );
    await expectRefused('2026-12-01', 'unknown_key', `signed by key ${other.entry.keyId}, which is not one of the trusted keys`);

    // The genuine December manifest, on a day after it expired.
    await serveManifest(december);
    await expectRefused('2026-12-09', 'expired', 'it expired on 2026-12-08T11:00:00.000Z');
    expect((await sync('2026-12-01')).status).toBe(0);
    expect(installed()).toBe(DECEMBER);

    // An old answer replayed: November's manifest, genuinely signed, but older than the last one accepted.
    await serveManifest(november);
    await expectRefused('2026-12-01', 'replayed', `its sequence 1 (${NOVEMBER}) is older than 2 (${DECEMBER})`);

    // The operator's rollback: the same older release, made current with a higher sequence.
    await serveManifest(december);
    const rollback = await tariff(['rollback', NOVEMBER], '2026-12-02', { TARIFF_SIGNING_KEY: key.file });
    expect(rollback).toMatchObject({
      status: 0,
      stdout: `${NOVEMBER} is current (was ${DECEMBER}), signed until 2026-12-09T11:00:00.000Z\n`,
    });
    await service.logged((entry) => entry.event === 'release.switch' && entry.sequence === 3);
    const from = await logPosition(service);
    expect(await sync('2026-12-02')).toMatchObject({ status: 0, stdout: expect.stringContaining(`updated ${NOVEMBER} (was ${DECEMBER})`) });
    expect(await requestsSince(from)).toEqual(['/v1/version 200', '/v1/dataset.json.gz 200']);
    expect(installed()).toBe(NOVEMBER);
  });

  /** The sync refuses the manifest: exit 1 with the reason, nothing installed, no read spent beyond /version. */
  async function expectRefused(date: string, refusal: string, detail: string): Promise<void> {
    const before = installed();
    const from = await logPosition(service);
    const refused = await sync(date);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain(`the manifest is not trusted (${refusal}): `);
    expect(refused.stderr).toContain(detail);
    expect(refused.stdout).toBe('');
    expect(installed()).toBe(before);
    expect(await requestsSince(from)).toEqual(['/v1/version 200']);
  }

  it('rotates the key: both accepted while they overlap, the old one refused after its retirement', async () => {
    const next = await createKey('2026-12-03');
    const oldSigned = await currentManifest();
    expect(oldSigned.signature?.keyId).toBe(key.keyId);
    const both = [key.pin, next.pin];
    // Another till's account: the first one spent most of its reads of the day.
    till = { ...till, key: await apiKey() };
    const freshTill = async () => join(await tempDir(), 'tariffa');

    // A till that pins both keys accepts the old key's manifest, then the new key's.
    const early = await freshTill();
    expect(await sync('2026-12-03', { pins: both, dest: early })).toMatchObject({ status: 0, stderr: '' });
    const release = (date: string) => tariff(['release', '--quiet'], date, { TARIFF_SIGNING_KEY: next.file });
    expect(await release('2026-12-03')).toMatchObject({ status: 0, stdout: `published 20261201.2 (was ${NOVEMBER})\n` });
    expect(await currentManifest()).toMatchObject({ version: '20261201.2', sequence: 4, signature: { keyId: next.keyId } });
    await service.logged((entry) => entry.event === 'release.switch' && entry.sequence === 4);
    expect((await sync('2026-12-03', { pins: both, dest: early })).stdout).toContain(`updated 20261201.2 (was ${NOVEMBER})`);

    // A fresh signature needs nothing; past half its validity, the cron run signs it again (same version, next sequence).
    expect(await release('2026-12-03')).toMatchObject({ status: 0, stdout: '', stderr: '' });
    expect(await release('2026-12-07')).toMatchObject({ status: 0, stdout: 're-signed 20261201.2 until 2026-12-14T11:00:00.000Z\n' });
    expect(await currentManifest()).toMatchObject({ version: '20261201.2', sequence: 5, signature: { keyId: next.keyId } });

    // The old key is retired from 5 December; the service announces it.
    expect(await tariff(['signing-key', 'retire', key.keyId, '--at', '2026-12-05T00:00:00Z'], '2026-12-03')).toMatchObject({
      status: 0,
      stdout: `retired ${key.keyId} from 2026-12-05T00:00:00.000Z\n`,
    });
    // The website shows both keys, as a till pins them, the old one with its retirement (the service's clock is today's).
    await service.logged((entry) => entry.event === 'signing_keys.changed' && (entry.retired as string[]).includes(key.keyId));
    const page = await (await fetch(`${service.url}/chiavi-di-firma`)).text();
    expect(page).toContain(`<code>${key.pin}</code>`);
    expect(page).toContain(`<code>${next.pin}</code>`);
    expect(page).toMatch(/(in uso fino al|ritirata dal) 05\/12\/26, 01:00/);
    const listed = await tariff(['signing-key', 'list'], '2026-12-06');
    expect(listed.stdout).toMatch(new RegExp(`${key.keyId}:\\S+\\s+\\S+\\s+2026-12-05T00:00:00.000Z\\s+retired`));
    // A manifest the old key signed (replayed by whoever kept it) is accepted before the date, refused after.
    await serveManifest(oldSigned);
    expect((await sync('2026-12-04', { pins: both, dest: await freshTill() })).status).toBe(0);
    const late = await sync('2026-12-06', { pins: both, dest: await freshTill() });
    expect(late.status).toBe(1);
    expect(late.stderr).toContain(`(retired_key): it is signed by key ${key.keyId}, retired on 2026-12-05T00:00:00.000Z`);
    // Signing with the retired key is refused too.
    const refused = await tariff(['rollback', NOVEMBER], '2026-12-06', { TARIFF_SIGNING_KEY: key.file });
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain(`The signing key ${key.keyId} was retired on 2026-12-05T00:00:00.000Z`);
  });

  it('checks the current signature in tariff verify --bucket, and rebuilds a release byte for byte from its provenance', async () => {
    // The current manifest is the one the old key signed, retired from 5 December.
    expect((await tariff(['verify'], '2026-12-04')).stdout).toContain('ok 20261101.1');
    const late = await tariff(['verify'], '2026-12-06');
    expect(late.status).toBe(1);
    expect(late.stderr).toContain("the current manifest's signature does not verify");
    expect(late.stderr).toContain(`current.json: it is signed by key ${key.keyId}, retired on 2026-12-05T00:00:00.000Z (retired_key)`);

    expect(await tariff(['verify', '--rebuild', DECEMBER], '2026-12-06')).toMatchObject({
      status: 0,
      stdout: `${DECEMBER} matches its rebuild: 4 document(s) from the snapshots give the same three files, byte for byte\n`,
    });
    // One byte of a source changed in the snapshots: the rebuild says it does not match, and which file differs.
    const { provenance } = manifestSchema.parse(JSON.parse((await bucket.get(`releases/${DECEMBER}/manifest.json`))!.toString()));
    const doc = provenance!.documents.find((d) => d.url.endsWith('sigarette-2026-12-01.xml'))!;
    const snapshot = join(dataDir, 'snapshots', `${doc.sha256}.xml`);
    const bytes = readFileSync(snapshot);
    const at = bytes.indexOf('<prezzoConfezione>') + '<prezzoConfezione>'.length;
    bytes[at] = bytes[at] === 0x39 ? 0x38 : bytes[at]! + 1;
    writeFileSync(snapshot, bytes);
    const differs = await tariff(['verify', '--rebuild', DECEMBER], '2026-12-06');
    expect(differs.status).toBe(1);
    expect(differs.stderr).toContain(`${DECEMBER} does not match its rebuild:`);
    expect(differs.stderr).toContain(`${doc.url} (from the snapshots): ${doc.size} bytes with SHA-256 `);
    expect(differs.stderr).toMatch(/dataset\.json\.gz: the rebuild gives \d+ bytes/);
  });
});

describe('tariff verify --rebuild of a release of the authority’s real list', () => {
  it('builds the published release again, byte for byte, from the PDF kept in the snapshots', async () => {
    const own = await tempDir();
    const url = authority.url('/2-LIST-22-07-2026.pdf');
    authority.lists.set('/2-LIST-22-07-2026.pdf', { body: readFileSync(REAL_LIST) });
    const run = (args: string[]) =>
      runCli([...args, '--data-dir', own], {
        env: { TARIFF_SOURCE_URLS: url, TARIFF_BUCKET: join(own, 'bucket'), ...onDay('2026-07-23') },
      });
    expect(await run(['release', '--quiet'])).toMatchObject({ status: 0, stdout: 'published 20260722.1 (was none)\n' });
    const { provenance } = manifestSchema.parse(
      JSON.parse(readFileSync(join(own, 'bucket', 'releases', '20260722.1', 'manifest.json'), 'utf8')),
    );
    expect(provenance!.documents).toEqual([
      { url, sha256: createHash('sha256').update(readFileSync(REAL_LIST)).digest('hex'), size: statSync(REAL_LIST).size, pageDate: null },
    ]);
    expect(await run(['verify', '--rebuild', '20260722.1'])).toMatchObject({
      status: 0,
      stdout: '20260722.1 matches its rebuild: 1 document(s) from the snapshots give the same three files, byte for byte\n',
    });
  });
});
