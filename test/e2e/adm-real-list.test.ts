import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Dataset } from '../../src/dataset/model.ts';
import { openDatasetFile } from '../../src/release/read-release.ts';
import { FORMATS } from '../../src/release/manifest.ts';
import { readWithPdftotext } from '../helpers/pdftotext-reading.ts';
import { REPO, runCli } from '../helpers/run-cli.ts';
import { tempDir } from '../helpers/temp-dir.ts';

// The authority's real cigar list, updated on 22/07/2026 (shared/adm, copied into fixtures/adm).
const REAL_LIST = join(REPO, 'fixtures/adm/listino-sigari-2026-07-22.pdf');

describe("the authority's real cigar list of 22/07/2026", () => {
  it('is the file the authority published (same bytes as shared/adm)', () => {
    const shared = join(REPO, '../shared/adm/listino-sigari-2026-07-22.pdf');
    let original: Buffer | null = null;
    try {
      original = readFileSync(shared);
    } catch {
      // shared/ sits beside the clone in CI and on developers' machines; elsewhere the copy stands alone.
    }
    if (original) expect(readFileSync(REAL_LIST).equals(original)).toBe(true);
  });

  it('reaches the release row for row, exactly as pdftotext -layout reads it, in all three formats', async () => {
    const independent = readWithPdftotext(REAL_LIST);
    // What the independent reading itself says of the file, before it is compared with ours.
    expect(independent.listDates).toEqual(['22/07/2026']);
    expect(independent.headers).toEqual(['Codice Sigari Conf.ne €/kg conv.le €/conf.ne']);
    expect(independent.rows.length).toBe(independent.productLines);
    expect(independent.rows.length).toBeGreaterThan(2800);
    expect(new Set(independent.rows.map((row) => row.admCode)).size).toBe(independent.rows.length);

    const out = join(await tempDir(), 'release');
    const built = await runCli([
      'build',
      '--source',
      REAL_LIST,
      '--date',
      '2026-11-22',
      '--out',
      out,
      '--data-dir',
      await tempDir(),
      '--json',
    ]);
    expect(built.stderr).toBe('');
    expect(built.status).toBe(0);
    const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'));
    expect(manifest).toMatchObject({
      version: '20260722.1',
      tariffDate: '2026-07-22',
      counts: { products: independent.rows.length, barcodes: 0 },
    });

    const expected = independent.rows
      .map((row) => ({ ...row, category: 'cigars', effectiveFrom: '2026-07-22' }))
      .sort((a, b) => a.admCode - b.admCode);
    for (const format of FORMATS) {
      const dataset: Dataset = await openDatasetFile(format, readFileSync(join(out, `dataset.${format}.gz`)));
      const read = dataset.products.map(({ admCode, name, pack, pricePerKgCents, pricePerPackCents, category, effectiveFrom }) => ({
        admCode,
        name,
        pack,
        pricePerKgCents,
        pricePerPackCents,
        category,
        effectiveFrom,
      }));
      expect(read, format).toEqual(expected);
    }
  });

  it('keeps the quirks of the real file as written, and reads the size out of them', async () => {
    const out = join(await tempDir(), 'release');
    expect(
      (await runCli(['build', '--source', REAL_LIST, '--date', '2026-11-22', '--out', out, '--data-dir', await tempDir()])).status,
    ).toBe(0);
    const { products } = await openDatasetFile('json', readFileSync(join(out, 'dataset.json.gz')));
    const byCode = new Map(products.map((p) => [p.admCode, p]));
    // Rows of the real list whose pack is written unusually, and one with short code and accented name.
    expect(byCode.get(21872)).toMatchObject({ pack: 'da5 pezzi', packQuantity: 5, packUnit: 'pieces', pricePerPackCents: 530 });
    expect(byCode.get(21743)).toMatchObject({ pack: 'da 20pezzi', packQuantity: 20 });
    expect(byCode.get(21551)).toMatchObject({ pack: 'de 25 pezzi', packQuantity: 25 });
    expect(byCode.get(21869)).toMatchObject({ pack: 'a 20 pezzi', packQuantity: 20 });
    expect(byCode.get(21825)).toMatchObject({ name: 'TOSCANO T', pack: 'da 6 sigari', packQuantity: 6, packUnit: 'pieces' });
    expect(byCode.get(684)).toMatchObject({ name: 'AMMEZZATI TOSCANO GARIBALDI', pricePerKgCents: 19200, pricePerPackCents: 480 });
    expect(byCode.get(3544)).toMatchObject({ name: 'BALMORAL AÑEJO XO CORONA', pricePerKgCents: 150000 });
    expect(products.filter((p) => p.packQuantity === null)).toEqual([]);
  });
});
