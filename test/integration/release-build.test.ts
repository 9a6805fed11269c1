import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import Datastore from 'nedb-promises';
import { describe, expect, it } from 'vitest';
import { generateTariff } from '../../fixtures/generate-tariff.ts';
import { parseBarcodeList } from '../../src/dataset/parse-barcode-list.ts';
import { buildRelease } from '../../src/pipeline/build-release.ts';
import type { BuildOptions } from '../../src/pipeline/built-release.ts';
import { DOCDB_INDEXES, readDatasetDocdb } from '../../src/release/dataset-docdb.ts';
import { parseDatasetJson } from '../../src/release/dataset-json.ts';
import { gunzip } from '../../src/release/gzip.ts';
import { FORMATS, type Manifest } from '../../src/release/manifest.ts';
import { openDatasetFile } from '../../src/release/read-release.ts';
import { verifyRelease } from '../../src/release/verify-release.ts';
import { writeReleaseDir } from '../../src/release/write-release-dir.ts';
import { feed } from '../helpers/feed.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const SAMPLE = new URL('../../fixtures/sample/', import.meta.url);
const sampleSources = [
  'altri-tabacchi-2026-06-01.xml',
  'liquidi-2026-06-01.xml',
  'sigarette-2026-11-01.xml',
  'sigarette-2026-12-01.xml',
].map((name) => ({
  name,
  bytes: readFileSync(new URL(`tariff/${name}`, SAMPLE)),
}));
const sampleBarcodes = parseBarcodeList(readFileSync(new URL('barcodes.csv', SAMPLE), 'utf8'), 'barcodes.csv');

async function build(overrides: Partial<BuildOptions> = {}) {
  return buildRelease({
    sources: sampleSources,
    barcodes: sampleBarcodes,
    date: '2026-11-22',
    baseUrl: 'https://tariff.example/v1',
    previous: null,
    allowShrink: false,
    maxShrinkPercent: 20,
    now: () => new Date('2026-11-22T05:00:00Z'),
    scratchDir: await tempDir(),
    ...overrides,
  });
}

describe('a release built from the sample tariff', () => {
  it('has the manifest of section 2.1', async () => {
    const { manifest } = await build();
    expect(manifest).toMatchObject({
      version: '20261101.1',
      tariffDate: '2026-11-01',
      generatedAt: '2026-11-22T06:00:00+01:00',
      source: 'Agenzia delle Dogane e dei Monopoli',
      schemaVersion: 2,
      counts: { products: 14, barcodes: 10 },
    });
    // The spec's fields in its order, then the provenance (docs/dataset.md): each source by SHA-256, the day, the builder.
    expect(Object.keys(manifest)).toEqual([
      'version',
      'tariffDate',
      'generatedAt',
      'source',
      'schemaVersion',
      'counts',
      'files',
      'provenance',
    ]);
    const version = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version;
    expect(manifest.provenance).toMatchObject({ builder: `tariff ${version}`, date: '2026-11-22' });
    expect(manifest.provenance!.documents.length).toBeGreaterThan(0);
    for (const doc of manifest.provenance!.documents)
      expect(doc.sha256).toBe(
        createHash('sha256')
          .update(readFileSync(new URL(`tariff/${doc.url}`, SAMPLE)))
          .digest('hex'),
      );
    for (const format of FORMATS) {
      expect(manifest.files[format].url).toBe(`https://tariff.example/v1/dataset.${format}.gz`);
      expect(manifest.files[format].sha256).toMatch(/^[0-9a-f]{64}$/);
    }
    const installed = JSON.parse(readFileSync(new URL('../../node_modules/@seald-io/nedb/package.json', import.meta.url), 'utf8')).version;
    expect(manifest.files.docdb).toMatchObject({ docdbVersion: installed, schemaVersion: 2 });
  });

  it('holds the same canonical content in each format, read back by its own engine', async () => {
    const built = await build();
    const canonical = parseDatasetJson(gunzip(built.files.json));
    expect(canonical.products).toHaveLength(14);
    expect(canonical.products.find((p) => p.admCode === 2002)).toEqual({
      admCode: 2002,
      name: 'HABANERO GRAN RISERVA',
      category: 'cigars',
      pack: 'scatola da 25 pezzi',
      packQuantity: 25,
      packUnit: 'pieces',
      pricePerKgCents: 1250000,
      pricePerPackCents: 125000,
      effectiveFrom: '2026-06-01',
      referencePriceCents: 1250000,
      referenceUnit: 'conventional_kg',
    });
    expect(canonical.barcodes.find((b) => b.admCode === 1004)).toEqual({ barcode: '0800100100408', admCode: 1004, kind: 'pack', units: 1 });
    for (const format of FORMATS) expect(await openDatasetFile(format, built.files[format])).toEqual(canonical);
  });

  it('is byte-identical when rebuilt from the same input', async () => {
    const first = await build();
    const second = await build({ now: () => new Date('2026-11-22T09:00:00Z') });
    for (const format of FORMATS) expect(second.files[format].equals(first.files[format])).toBe(true);
  });

  it('writes a SQLite file that the sqlite3 shell opens read-only, with its indexes', async () => {
    const dir = await tempDir();
    const built = await build();
    writeFileSync(join(dir, 'dataset.sqlite'), gunzip(built.files.sqlite));
    const run = (sql: string) => execFileSync('sqlite3', ['-readonly', join(dir, 'dataset.sqlite'), sql], { encoding: 'utf8' }).trim();
    expect(run("SELECT value FROM meta WHERE key = 'schemaVersion'")).toBe('2');
    expect(
      run("SELECT name, price_per_pack_cents FROM products p JOIN barcodes b USING (adm_code) WHERE b.barcode = '8001001001005'"),
    ).toBe('AURORA ROSSA|600');
    expect(run('EXPLAIN QUERY PLAN SELECT * FROM barcodes WHERE adm_code = 1001')).toMatch(/barcodes_adm_code/);
    expect(run('PRAGMA user_version')).toBe('2');
  });

  it('declares its indexes in the NeDB datafile and answers a barcode lookup', async () => {
    const built = await build();
    const lines = gunzip(built.files.docdb)
      .toString('utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines.filter((line) => line.$$indexCreated).map((line) => line.$$indexCreated)).toEqual([
      { fieldName: 'admCode', unique: true, sparse: true },
      { fieldName: 'barcodes.barcode', unique: true, sparse: true },
    ]);
    const product = lines.find((line) => line.barcodes?.some((entry: { barcode: string }) => entry.barcode === '8001001001012'));
    expect(product).toMatchObject({
      _id: 'product:0000001001',
      admCode: 1001,
      barcodes: [
        { barcode: '8001001001005', kind: 'pack', units: 1 },
        { barcode: '8001001001012', kind: 'carton', units: 10 },
      ],
    });
  });

  it('is read back by NeDB and left with the bytes its manifest names (the engine rewrites a file it loads)', async () => {
    const built = await build();
    const path = join(await tempDir(), 'dataset.docdb');
    writeFileSync(path, gunzip(built.files.docdb));
    const dataset = await readDatasetDocdb(path);
    expect(dataset.barcodes.map((row) => row.barcode)).toContain('8001001001012');
    expect(createHash('sha256').update(gunzip(built.files.docdb)).digest('hex')).toBe(
      createHash('sha256').update(readFileSync(path)).digest('hex'),
    );
  });

  it('writes the NeDB datafile byte for byte as the engine does when it declares the indexes and inserts the documents', async () => {
    const first = await build({ date: '2026-11-22' });
    // With a previous release, so the file holds change documents too.
    const built = await build({
      date: '2026-12-01',
      previous: first.manifest,
      previousDataset: await openDatasetFile('json', first.files.json),
    });
    expect(built.changes.length).toBeGreaterThan(0);
    const ours = gunzip(built.files.docdb).toString('utf8');
    const documents = ours
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
      .filter((line) => !line.$$indexCreated);
    const path = join(await tempDir(), 'engine.db');
    const engine = Datastore.create({ filename: path, autoload: false });
    await engine.load();
    for (const index of DOCDB_INDEXES) await engine.ensureIndex({ ...index });
    await engine.insert(documents);
    expect(await readFile(path, 'utf8')).toBe(ours);
  });
});

describe('version numbering across a sequence of builds', () => {
  it('keeps, bumps and restarts the sequence as the content and the tariff date change', async () => {
    const first = await build();
    expect(first.manifest.version).toBe('20261101.1');

    const same = await build({ previous: first.manifest });
    expect(same).toMatchObject({ unchanged: true, manifest: { version: '20261101.1', generatedAt: first.manifest.generatedAt } });
    for (const format of FORMATS) expect(same.files[format].equals(first.files[format])).toBe(true);

    const changed = await build({ previous: first.manifest, barcodes: sampleBarcodes.slice(1) });
    expect(changed).toMatchObject({ unchanged: false, manifest: { version: '20261101.2', counts: { barcodes: 9 } } });

    const back = await build({ previous: changed.manifest });
    expect(back.manifest.version).toBe('20261101.3');

    const waiting = await build({ previous: back.manifest, date: '2026-11-30' });
    expect(waiting).toMatchObject({
      unchanged: true,
      manifest: { version: '20261101.3' },
      pending: [{ category: 'sigarette', effectiveFrom: '2026-12-01' }],
    });

    const future = await build({ previous: back.manifest, date: '2026-12-01' });
    expect(future.manifest).toMatchObject({ version: '20261201.1', tariffDate: '2026-12-01', counts: { products: 15 } });
  });

  it('decides "unchanged" on the content, not on how zlib compressed it', async () => {
    const first = await build();
    const rows = parseDatasetJson(gunzip(first.files.json));
    // The previous release as another Node.js's zlib would have compressed it: other bytes, same rows.
    const recompressed = {
      ...first.manifest,
      files: { ...first.manifest.files, json: { ...first.manifest.files.json, sha256: 'f'.repeat(64) } },
    };
    const same = await build({ previous: recompressed, previousDataset: rows });
    expect(same).toMatchObject({ unchanged: true, manifest: { version: '20261101.1' } });
    // Without the previous rows, only the bytes can tell: a new version, never a silent skip.
    expect(await build({ previous: recompressed })).toMatchObject({ unchanged: false, manifest: { version: '20261101.2' } });
  });

  it('refuses to shrink by more than the share allowed, unless told', async () => {
    const first = await build();
    const small = [
      {
        name: 'small.xml',
        bytes: Buffer.from(feed('2026-11-01', { sigarette: [['1001', 'AURORA ROSSA', 'astuccio da 20 pezzi', '300,00', '6,00']] })),
      },
    ];
    await expect(build({ previous: first.manifest, sources: small })).rejects.toMatchObject({ code: 'shrink_refused' });
    await expect(build({ previous: first.manifest, sources: small, allowShrink: true })).resolves.toMatchObject({
      manifest: { counts: { products: 1 } },
    });
  });
});

describe('verify', () => {
  async function writtenRelease(): Promise<{ dir: string; manifest: Manifest }> {
    const dir = join(await tempDir(), 'release');
    const built = await build();
    await writeReleaseDir(built, dir);
    return { dir, manifest: built.manifest };
  }

  it('passes a release as written', async () => {
    const { dir } = await writtenRelease();
    await expect(verifyRelease(dir)).resolves.toMatchObject({ ok: true, problems: [] });
  });

  it('replaces only an empty or release folder, never a folder holding anything else', async () => {
    const { dir } = await writtenRelease();
    const built = await build();
    await writeReleaseDir(built, dir);
    const dataDir = await tempDir();
    writeFileSync(join(dataDir, 'registry.sqlite'), 'every account and key');
    await expect(writeReleaseDir(built, dataDir)).rejects.toMatchObject({
      code: 'output_not_release',
      exitCode: 2,
      message: expect.stringContaining('it holds registry.sqlite'),
    });
    expect(readFileSync(join(dataDir, 'registry.sqlite'), 'utf8')).toBe('every account and key');
    await expect(verifyRelease(dir)).resolves.toMatchObject({ ok: true });
  });

  it('catches a corrupted file', async () => {
    const { dir } = await writtenRelease();
    const path = join(dir, 'dataset.sqlite.gz');
    const bytes = await readFile(path);
    bytes[bytes.length - 20]! ^= 0xff;
    writeFileSync(path, bytes);
    const report = await verifyRelease(dir);
    expect(report.ok).toBe(false);
    expect(report.problems.join('\n')).toMatch(/dataset\.sqlite\.gz: SHA-256 is [0-9a-f]+, the manifest says/);
  });

  it('catches formats that disagree even when the hashes were forged to match', async () => {
    const { dir, manifest } = await writtenRelease();
    const other = await build({ barcodes: sampleBarcodes.slice(1) });
    writeFileSync(join(dir, 'dataset.docdb.gz'), other.files.docdb);
    manifest.files.docdb = { ...manifest.files.docdb, sha256: other.manifest.files.docdb.sha256, size: other.manifest.files.docdb.size };
    writeFileSync(join(dir, 'manifest.json'), JSON.stringify(manifest));
    const report = await verifyRelease(dir);
    expect(report.problems.join('\n')).toMatch(/dataset\.docdb\.gz: holds 9 barcodes, the manifest says 10/);
    expect(report.problems.join('\n')).toMatch(/dataset\.docdb\.gz: its rows differ from dataset\.json\.gz/);
  });
});

describe('the generated tariff at realistic size', () => {
  it('builds 10,000 products and 100,000 barcodes that verify', async () => {
    const generated = generateTariff({ products: 10_000, barcodes: 100_000, effectiveFrom: '2026-11-01' });
    const built = await build({ sources: generated.documents, barcodes: parseBarcodeList(generated.barcodesCsv, 'generated.csv') });
    expect(built.manifest.counts).toEqual({ products: 10_000, barcodes: 100_000 });
    const dir = join(await tempDir(), 'release');
    await writeReleaseDir(built, dir);
    await expect(verifyRelease(dir)).resolves.toMatchObject({ ok: true });
  });
});
