import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { gs1CheckDigit } from '../../src/gs1/gtin.ts';
import { AuthorityServer } from '../helpers/authority-server.ts';
import { onDay, REPO, runCli } from '../helpers/run-cli.ts';
import { serveInProcess } from '../helpers/serve-in-process.ts';
import type { RunningServe } from '../helpers/serve-process.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import { readBucketJson } from '../helpers/bucket-folder.ts';

const SAMPLE = join(REPO, 'fixtures/sample/tariff');
const gtin = (body: string) => body + gs1CheckDigit(body);
let dataDir: string;
let service: RunningServe | null = null;

beforeEach(async () => {
  dataDir = await tempDir();
  const out = join(dataDir, 'build');
  await runCli(['build', '--source', SAMPLE, '--date', '2026-11-22', '--out', out, '--data-dir', dataDir]);
  expect((await runCli(['publish', out, '--data-dir', dataDir])).status).toBe(0);
});
afterEach(async () => {
  await service?.stop();
  service = null;
});

const cli = (args: string[]) => runCli([...args, '--data-dir', dataDir]);
async function account(email: string, type = 'User', limit?: number): Promise<string> {
  expect((await cli(['accounts', 'create', email, '--type', type, ...(limit ? ['--submit-limit', String(limit)] : [])])).status).toBe(0);
  return JSON.parse((await cli(['keys', 'create', email, '--json'])).stdout).key;
}
async function serve() {
  service = await serveInProcess(dataDir);
  return service.url;
}
const submit = (url: string, key: string, body: unknown) =>
  fetch(`${url}/v1/barcodes`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
const mine = (url: string, key: string, query = '') =>
  fetch(`${url}/v1/my-submissions${query}`, { headers: { authorization: `Bearer ${key}` } });

describe('POST /v1/barcodes', () => {
  it('validates each item with the reasons of section 7.3 and answers every outcome in request order', async () => {
    const user = await account('shop@example.it');
    const integration = await account('pos@example.it', 'Integration');
    const url = await serve();
    expect((await cli(['contributors', 'block', 'pos@example.it', 'shop-9'])).status).toBe(0);
    expect((await cli(['barcodes', 'revoke', gtin('800100100999')])).status).toBe(0);

    const items = [
      { barcode: '8001001001005', admCode: 1001 },
      { barcode: '12345', admCode: 1001 },
      { barcode: '8001001001006', admCode: 1001 },
      { barcode: gtin('978880000000'), admCode: 1001 },
      { barcode: '8001001002002', admCode: 424242 },
      { barcode: '8001001002002', admCode: 1002, kind: 'box' },
      { barcode: '8001001002002', admCode: 1002, kind: 'carton', units: 1 },
      { barcode: gtin('800100100999'), admCode: 1001 },
      { barcode: '8001001002002', admCode: 1002, contributorRef: 'shop-1' },
      { barcode: '8001001001005', admCode: 1001 },
    ];
    const response = await submit(url, user, { items });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-ratelimit-limit')).toBe('100');
    expect(response.headers.get('x-ratelimit-remaining')).toBe('90');
    const body = await response.json();
    expect(body).toMatchObject({ accepted: 1, unchanged: 1, rejected: 8 });
    expect(body.results.map((r: { outcome: string; reason: string | null }) => r.reason ?? r.outcome)).toEqual([
      'accepted',
      'invalid_barcode',
      'invalid_checksum',
      'unsupported_barcode',
      'unknown_adm_code',
      'invalid_kind',
      'invalid_units',
      'barcode_revoked',
      'contributor_ref_not_allowed',
      'unchanged',
    ]);
    expect(body.results[0]).toEqual({ index: 0, barcode: '8001001001005', outcome: 'accepted', reason: null, status: 'to_confirm' });
    expect(body.results[1]).toEqual({ index: 1, barcode: '12345', outcome: 'rejected', reason: 'invalid_barcode', status: null });

    const forIntegration = await (
      await submit(url, integration, {
        items: [
          { barcode: '8001001001005', admCode: 1001, contributorRef: 'shop 1' },
          { barcode: '8001001001005', admCode: 1001, contributorRef: 'shop-9' },
          { barcode: '8001001001005', admCode: 1001, contributorRef: 'shop-1' },
        ],
      })
    ).json();
    expect(forIntegration.results.map((r: { reason: string | null; status: string | null }) => r.reason ?? r.status)).toEqual([
      'invalid_contributor_ref',
      'contributor_blocked',
      'approved',
    ]);
  });

  it('answers a bad body with a documented 400 that costs nothing', async () => {
    const key = await account('shop@example.it');
    const url = await serve();
    const cases: [unknown, number, Record<string, unknown>][] = [
      ['{"items": [', 400, { error: 'invalid_json' }],
      [[1, 2], 400, { error: 'invalid_body' }],
      [{ items: 'x' }, 400, { error: 'invalid_body' }],
      [{ items: [] }, 400, { error: 'empty_batch' }],
      [{ items: Array.from({ length: 501 }, () => ({})) }, 400, { error: 'batch_too_large', max: 500 }],
    ];
    for (const [body, status, error] of cases) {
      const response = await submit(url, key, body);
      expect(response.status).toBe(status);
      expect(await response.json()).toMatchObject(error);
      expect(response.headers.get('x-ratelimit-remaining')).toBe('100');
    }
  });

  it('counts one submission per item and refuses a batch larger than what remains, whole', async () => {
    const key = await account('shop@example.it', 'User', 5);
    const url = await serve();
    const three = await submit(url, key, {
      items: [
        { barcode: '8001001001005', admCode: 1001 },
        { barcode: 'bad', admCode: 1 },
        { barcode: '8001001001005', admCode: 1001 },
      ],
    });
    expect(three.headers.get('x-ratelimit-remaining')).toBe('2');
    const refused = await submit(url, key, {
      items: [
        { barcode: '8001001002002', admCode: 1002 },
        { barcode: '8001001003009', admCode: 1003 },
        { barcode: '8001002001004', admCode: 2001 },
      ],
    });
    expect(refused.status).toBe(429);
    const body = await refused.json();
    expect(body).toMatchObject({ error: 'rate_limited', limit: 5, remaining: 2, retryAfterSeconds: expect.any(Number) });
    expect(refused.headers.get('retry-after')).toBe(String(body.retryAfterSeconds));
    const records = await (await mine(url, key)).json();
    expect(records.items.map((r: { barcode: string }) => r.barcode)).toEqual(['8001001001005']);
    // A limit no registry engine could store is a usage error, on SQLite as on PostgreSQL.
    const huge = await cli(['accounts', 'set-limit', 'shop@example.it', '--submit', '3000000000']);
    expect(huge).toMatchObject({ status: 2, stderr: expect.stringContaining('--submit 3000000000 is more than 2147483647') });
    expect((await cli(['accounts', 'set-limit', 'shop@example.it', '--submit', '50'])).status).toBe(0);
    expect((await submit(url, key, { items: [{ barcode: '8001001002002', admCode: 1002 }] })).status).toBe(200);
  });

  it('never lets two concurrent batches of one account exceed the hourly limit', async () => {
    const key = await account('shop@example.it', 'User', 100);
    const url = await serve();
    const batch = { items: Array.from({ length: 60 }, () => ({ barcode: '8001001001005', admCode: 1001 })) };
    const statuses = await Promise.all(
      [submit(url, key, batch), submit(url, key, batch), submit(url, key, batch)].map((p) => p.then((r) => r.status)),
    );
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 429)).toHaveLength(2);
    const me = await (await fetch(`${url}/v1/me`, { headers: { 'x-api-key': key } })).json();
    expect(me.limits.submit).toMatchObject({ used: 60, remaining: 40 });
  });

  it('shows outvoted records, and pages through my-submissions, most recent first', async () => {
    const first = await account('a@example.it');
    const second = await account('b@example.it');
    const third = await account('c@example.it');
    const url = await serve();
    await submit(url, first, { items: [{ barcode: '8001001001012', admCode: 1001, kind: 'carton', units: 10 }] });
    await submit(url, second, { items: [{ barcode: '8001001001012', admCode: 1001, kind: 'carton', units: 20 }] });
    expect((await (await mine(url, first)).json()).items[0].status).toBe('conflict');
    expect((await cli(['barcodes', 'approve', '8001001001012', '--adm-code', '1001', '--kind', 'carton', '--units', '10'])).status).toBe(0);
    expect((await (await mine(url, second)).json()).items[0]).toMatchObject({
      barcode: '8001001001012',
      admCode: 1001,
      kind: 'carton',
      units: 20,
      contributorRef: null,
      status: 'outvoted',
    });
    expect((await (await mine(url, first)).json()).items[0].status).toBe('approved');

    const codes = ['800100100100', '800100100200', '800100100300'].map(gtin);
    for (const code of codes) await submit(url, third, { items: [{ barcode: code, admCode: 1001 }] });
    const page = await (await mine(url, third, '?limit=2&offset=1')).json();
    expect(page.items.map((r: { barcode: string }) => r.barcode)).toEqual([codes[1], codes[0]]);
    expect(page.items[0].submittedAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+00:00$/);
    for (const query of ['?limit=0', '?limit=1001', '?limit=x', '?offset=-1']) {
      const bad = await mine(url, third, query);
      expect(bad.status).toBe(400);
      expect(await bad.json()).toMatchObject({ error: 'invalid_parameter' });
    }
  });
});

describe('moderation and the next release', () => {
  let authority: AuthorityServer;
  beforeEach(async () => {
    authority = await new AuthorityServer().start();
    for (const name of ['altri-tabacchi-2026-06-01.xml', 'liquidi-2026-06-01.xml', 'sigarette-2026-11-01.xml'])
      authority.lists.set(`/${name}`, { body: readFileSync(join(SAMPLE, name)) });
  });
  afterEach(async () => {
    await authority.close();
  });

  it('publishes an approved barcode in <same date>.<n+1> with one barcode more', async () => {
    const env = { TARIFF_SOURCE_URLS: [...authority.lists.keys()].map((path) => authority.url(path)).join(' ') };
    const release = () => runCli(['release', '--data-dir', dataDir, '--quiet'], { env: { ...env, ...onDay('2026-11-22') } });
    const key = await account('shop@example.it');
    const url = await serve();
    await submit(url, key, { items: [{ barcode: '8001001001005', admCode: 1001 }] });

    const first = await release();
    // The bucket already holds the sample, and one vote is not a quorum: nothing new to publish, nothing said.
    expect(first).toMatchObject({ status: 0, stdout: '' });
    const before = readBucketJson(join(dataDir, 'bucket'), 'current.json');

    const listed = JSON.parse((await cli(['barcodes', 'list', '--status', 'to_confirm', '--json'])).stdout);
    expect(listed).toMatchObject([{ barcode: '8001001001005', status: 'to_confirm', votes: 1 }]);
    // Codes by the one rule: not a code, or not in the bucket's current release, is refused without a stack trace.
    for (const [code, said] of [
      ['99999999999', 'is not a tariff code'],
      ['0x10', 'is not a tariff code'],
      ['9999', 'Tariff code 9999 is not in the tariff currently published'],
    ]) {
      const refused = await cli(['barcodes', 'approve', '8001001001005', '--adm-code', code!]);
      expect(refused.status).toBe(2);
      expect(refused.stderr).toContain(said);
      expect(refused.stderr).not.toContain('This is a bug');
    }
    // A bucket with no release: the message names it, rather than calling the code unknown.
    const empty = await tempDir();
    const noRelease = await cli(['barcodes', 'approve', '8001001001005', '--adm-code', '1001', '--bucket', empty]);
    expect(noRelease.status).toBe(1);
    expect(noRelease.stderr).toContain(`tariff: folder ${empty}/ holds no current release (no current.json)`);
    expect(noRelease.stderr).not.toContain('is not in the tariff');
    expect((await cli(['barcodes', 'approve', '8001001001005', '--adm-code', '1001'])).status).toBe(0);
    const shown = JSON.parse((await cli(['barcodes', 'show', '8001001001005', '--json'])).stdout);
    expect(shown).toMatchObject({
      summary: { status: 'approved', adminDecision: 'approved' },
      votes: [{ email: 'shop@example.it', counted: true }],
    });

    const after = await release();
    const [date, n] = before.version.split('.');
    expect(after.stdout).toBe(`published ${date}.${Number(n) + 1} (was ${before.version})\n`);
    const current = readBucketJson(join(dataDir, 'bucket'), 'current.json');
    expect(current.counts.barcodes).toBe(before.counts.barcodes + 1);

    const audit = JSON.parse((await cli(['barcodes', 'list', '--json'])).stdout);
    expect(audit[0]).toMatchObject({ status: 'approved' });
  });
});
