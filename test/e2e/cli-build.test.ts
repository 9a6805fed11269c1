import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { SERVICE_NODE_FLAGS } from '../../src/service/service-runtime.ts';
import { describe, expect, it } from 'vitest';
import { feed } from '../helpers/feed.ts';
import { REPO, runCli } from '../helpers/run-cli.ts';
import { startServe } from '../helpers/serve-process.ts';
import { waitFor } from '../helpers/wait-for.ts';
import { tempDir, writeTree } from '../helpers/temp-dir.ts';
import { readBucketKey } from '../helpers/bucket-folder.ts';

const SAMPLE_TARIFF = join(REPO, 'fixtures/sample/tariff');
const SAMPLE_BARCODES = join(REPO, 'fixtures/sample/barcodes.csv');

describe('tariff build', () => {
  it('writes the release and prints its version (a real process, as CI runs it)', async () => {
    const out = join(await tempDir(), 'release');
    const args = ['build', '--source', SAMPLE_TARIFF, '--barcodes', SAMPLE_BARCODES, '--out', out, '--date', '2026-11-22'];
    const result = await runCli(args, { process: true });
    expect(result).toMatchObject({ status: 0, stdout: '20261101.1\n' });
    expect(result.stderr).toContain('built 20261101.1: tariff in force from 2026-11-01, 14 products, 10 barcodes');
    expect(result.stderr).toContain('waiting: sigarette list takes effect on 2026-12-01');
    expect(readdirSync(out).sort()).toEqual(['dataset.docdb.gz', 'dataset.json.gz', 'dataset.sqlite.gz', 'manifest.json', 'sources']);
    // The documents it read travel with it, each named by its SHA-256; built again into it, it is still a release folder.
    expect(readdirSync(join(out, 'sources')).every((name) => /^[0-9a-f]{64}$/.test(name))).toBe(true);
    expect((await runCli(args, { process: true })).status).toBe(0);
  });

  it('says when the content is unchanged from --previous, and with --json prints a summary', async () => {
    const out = join(await tempDir(), 'release');
    const args = ['build', '--source', SAMPLE_TARIFF, '--out', out, '--previous', out, '--date', '2026-11-22'];
    expect((await runCli(args)).status).toBe(0);
    const again = await runCli([...args, '--json']);
    expect(again.status).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({
      version: '20261101.1',
      unchanged: true,
      manifest: { counts: { products: 14, barcodes: 0 } },
      // Where the time went, per step and per stage of rendering (whole milliseconds).
      timings: { steps: { fetch: expect.any(Number), verify: expect.any(Number) }, build: { normalise: expect.any(Number) } },
    });
  });

  it('reads a source over HTTP', async () => {
    const server = createServer((_, response) =>
      response.end(feed('2026-11-01', { sigarette: [['1', 'A', 'astuccio da 20 pezzi', '300,00', '6,00']] })),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const out = join(await tempDir(), 'release');
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/sigarette.xml`;
      const result = await runCli(['build', '--source', url, '--out', out, '--date', '2026-11-22']);
      expect(result).toMatchObject({ status: 0, stdout: '20261101.1\n' });
    } finally {
      server.close();
    }
  });

  it('stops on invalid input, naming the product and where it is, and writes nothing', async () => {
    const dir = await tempDir();
    await writeTree(dir, {
      'bad.xml': feed('2026-11-01', {
        sigarette: [
          ['1', 'A', 'astuccio da 20 pezzi', '300,00', '6,00'],
          ['2', 'B', 'astuccio da 20 pezzi', '300,00', ''],
        ],
      }),
    });
    const result = await runCli(['build', '--source', join(dir, 'bad.xml'), '--out', join(dir, 'release'), '--date', '2026-11-22']);
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/bad\.xml line 5 \(categoria sigarette, prodotto n\. 2, codice 2 "B"\): <prezzoConfezione> is missing/);
    expect(readdirSync(dir)).toEqual(['bad.xml']);
  });

  it('leaves an existing release untouched when a build fails', async () => {
    const dir = await tempDir();
    const out = join(dir, 'release');
    expect((await runCli(['build', '--source', SAMPLE_TARIFF, '--out', out, '--date', '2026-11-22'])).status).toBe(0);
    const before = readFileSync(join(out, 'manifest.json'), 'utf8');
    await writeTree(dir, { 'truncated.xml': readFileSync(join(SAMPLE_TARIFF, 'altri-tabacchi-2026-06-01.xml')).subarray(0, 700) });
    const result = await runCli(['build', '--source', join(dir, 'truncated.xml'), '--out', out, '--date', '2026-11-22']);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('the XML is malformed');
    expect(readFileSync(join(out, 'manifest.json'), 'utf8')).toBe(before);
    expect(readdirSync(dir).sort()).toEqual(['release', 'truncated.xml']);
  });

  it('refuses a release that drops too many products unless --allow-shrink', async () => {
    const dir = await tempDir();
    const out = join(dir, 'release');
    expect((await runCli(['build', '--source', SAMPLE_TARIFF, '--out', out, '--date', '2026-11-22'])).status).toBe(0);
    await writeTree(dir, {
      'short.xml': feed('2026-11-01', { sigarette: [['1001', 'AURORA ROSSA', 'astuccio da 20 pezzi', '300,00', '6,00']] }),
    });
    const args = ['build', '--source', join(dir, 'short.xml'), '--out', out, '--previous', out, '--date', '2026-11-22'];
    const refused = await runCli([...args, '--json']);
    expect(refused.status).toBe(1);
    expect(JSON.parse(refused.stdout)).toMatchObject({ ok: false, error: { code: 'shrink_refused' } });
    expect(refused.stderr).toContain('drops 13 of the 14 products');
    expect((await runCli([...args, '--allow-shrink'])).status).toBe(0);
    expect(JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')).counts.products).toBe(1);
  });

  it.each([
    [['build', '--source', 'x.xml', '--out', 'o', '--date', '22/11/2026'], '--date 22/11/2026 is not a date'],
    [['build', '--out', 'o'], "required option '--source"],
    [['build', '--source', 'x.xml', '--out', 'o', '--max-shrink', 'lots'], '--max-shrink lots is not a percentage'],
    [['frobnicate'], "unknown command 'frobnicate'"],
  ])('exits 2 on a usage error: %j', async (args, message) => {
    const result = await runCli(args);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain(message);
  });

  it.each([
    [['build', '--out', 'o'], "required option '--source <file-dir-or-url...>' not specified", 'Run `tariff build --help`'],
    [['barcodes', 'approve', '8001001001005'], "required option '--adm-code <n>' not specified", 'Run `tariff barcodes approve --help`'],
    [['build', '--source', 'x.xml', '--out', 'o', '--colour'], "unknown option '--colour'", 'Run `tariff build --help`'],
    [['frobnicate'], "unknown command 'frobnicate'", 'Run `tariff --help`'],
  ])("reports commander's own usage error %j as every other: tariff: …, the hint, exit 2", async (args, message, hint) => {
    const result = await runCli(args);
    expect(result).toMatchObject({ status: 2, stdout: '' });
    const [said, hinted, ...rest] = result.stderr.split('\n');
    expect([said, hinted?.startsWith(`  ${hint}`), rest]).toEqual([`tariff: ${message}`, true, ['']]);
    const json = await runCli([...args, '--json']);
    expect(json.status).toBe(2);
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: false, error: { code: 'usage', message, hint: expect.stringContaining(hint) } });
  });

  it('has help text with an example for every command', async () => {
    for (const command of ['build', 'verify', 'diff', 'start']) {
      const result = await runCli([command, '--help']);
      expect(result.status).toBe(0);
      expect(result.stdout.length).toBeGreaterThan(100);
    }
  });
});

describe('tariff verify and tariff diff', () => {
  async function twoReleases() {
    const dir = await tempDir();
    const older = join(dir, 'older');
    const newer = join(dir, 'newer');
    await runCli(['build', '--source', SAMPLE_TARIFF, '--barcodes', SAMPLE_BARCODES, '--out', older, '--date', '2026-11-22']);
    await runCli([
      'build',
      '--source',
      SAMPLE_TARIFF,
      '--barcodes',
      SAMPLE_BARCODES,
      '--out',
      newer,
      '--previous',
      older,
      '--date',
      '2026-12-01',
    ]);
    return { older, newer };
  }

  it('verify exits 0 on a good release and 1 on a corrupted one', async () => {
    const { older } = await twoReleases();
    const ok = await runCli(['verify', older]);
    expect(ok).toMatchObject({ status: 0 });
    expect(ok.stdout).toContain('ok 20261101.1');
    const json = join(older, 'dataset.json.gz');
    const bytes = readFileSync(json);
    writeFileSync(json, bytes.subarray(0, bytes.length - 10));
    const bad = await runCli(['verify', older]);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/dataset\.json\.gz: size is \d+ bytes, the manifest says \d+/);
  });

  it('diff exits 0 when identical, 1 with a readable table when different, 2 on error', async () => {
    const { older, newer } = await twoReleases();
    expect(await runCli(['diff', older, older])).toMatchObject({ status: 0, stdout: expect.stringContaining('identical content') });
    const different = await runCli(['diff', older, newer]);
    expect(different.status).toBe(1);
    expect(different.stdout).toMatch(/Price changes \(4\)\ncode\s+name\s+old\s+new\s+change\s+%/);
    expect(different.stdout).toMatch(/1001\s+AURORA ROSSA\s+€ 6,00\s+€ 6,20\s+▲ \+€ 0,20\s+\+3,3 %/);
    expect(different.stdout).toMatch(/Products added \(1\)/);
    // The December list re-dates its products: one summary line, not a row per product.
    expect(different.stdout).toMatch(/Effective dates \(\d+ products\)\n2026-11-01 → 2026-12-01: \d+ products/);
    expect(different.stdout).not.toContain('effectiveFrom');
    const json = await runCli(['diff', older, newer, '--json']);
    expect(JSON.parse(json.stdout).products.priceChanged).toHaveLength(4);
    expect((await runCli(['diff', older, join(older, 'missing')])).status).toBe(2);
  });
});

describe('tariff start (npm start)', () => {
  it('publishes the bundled lists to the local bucket, creates the demo account once, and serves', async () => {
    const dataDir = await tempDir();
    const service = await startServe(['start', '--date', '2026-11-22'], { TARIFF_DATA_DIR: dataDir });
    try {
      expect(readBucketKey(join(dataDir, 'bucket'), 'current.json')).not.toBeNull();
      const stderr = await service.stderr();
      const key = /API key \(shown only now\): (ttd_\S+)/.exec(stderr)?.[1];
      expect(key).toBeDefined();
      const version = await fetch(`${service.url}/v1/version`, { headers: { authorization: `Bearer ${key}` } });
      // The real cigar list (2,821 rows) and 12 sample products of the other categories, all bundled in fixtures/adm.
      const manifest = await version.json();
      expect(manifest).toMatchObject({ version: '20261101.1', counts: { products: 2833, barcodes: 10 } });
      // The files' URLs name where this service listens (no TARIFF_BASE_URL): a client following them reaches them.
      expect(manifest.files.json.url).toBe(`${service.url}/v1/dataset.json.gz`);
      expect((await fetch(manifest.files.json.url, { headers: { authorization: `Bearer ${key}` } })).status).toBe(200);
      // The hint names the address the service got (the helper asks for port 0: any free one).
      const hint = `try: curl -H "Authorization: Bearer ${key}" ${service.url}/v1/version`;
      await waitFor(async () => (await service.stderr()).includes(hint), 'the curl hint');
      // Published, the command replaced itself with its serving half: the same process, on the service's flags.
      const command = readFileSync(`/proc/${service.child.pid}/cmdline`, 'utf8').split('\0');
      expect(command).toEqual(expect.arrayContaining(['start', '--serving', ...SERVICE_NODE_FLAGS]));
    } finally {
      await service.stop();
    }
    const again = await startServe(['start', '--date', '2026-11-22'], { TARIFF_DATA_DIR: dataDir });
    try {
      expect(await again.stderr()).toContain('demo account demo@example.org exists');
      // Compared with what the bucket holds (rows and changes): the same release, not a new version.
      expect(await again.stderr()).toContain('unchanged 20261101.1');
    } finally {
      await again.stop();
    }
  });
});
