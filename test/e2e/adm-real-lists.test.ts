import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REAL_LISTS } from '../../fixtures/adm-real-lists.ts';
import type { Dataset, Product } from '../../src/dataset/model.ts';
import { FORMATS } from '../../src/release/manifest.ts';
import { openDatasetFile } from '../../src/release/read-release.ts';
import { ITALIAN_MONTHS, readWithPdftotext, type IndependentRow } from '../helpers/pdftotext-reading.ts';
import { REPO, runCli } from '../helpers/run-cli.ts';
import { tempDir } from '../helpers/temp-dir.ts';

// The authority's real lists (shared/adm, copied into fixtures/adm), read by the builder and,
// independently, by poppler's pdftotext -layout with plain line matching.
const path = (name: string) => join(REPO, 'fixtures/adm', name);

// What each header and title, as pdftotext prints them, means: written here, not taken from the builder.
const CATEGORIES: Record<string, Product['category']> = {
  Sigari: 'cigars',
  Sigarette: 'cigarettes',
  'Trinciato per sigarette': 'rolling_tobacco',
  'Altri tabacchi da fumo': 'other_smoking_tobacco',
  'Prodotti da inalazione senza combustione': 'heated_tobacco',
};
const UNITS: Record<string, string> = { '€/kg conv.le': 'conventional_kg', '€/kg': 'kg', '€/1.000 pz.': '1000_pieces' };
const isoOf = (printed: string) => {
  const [day, month, year] = printed.includes('/') ? printed.split('/') : printed.split(' ');
  const m = /^\d+$/.test(month!) ? Number(month) : ITALIAN_MONTHS.indexOf(month!) + 1;
  return `${year}-${String(m).padStart(2, '0')}-${day!.padStart(2, '0')}`;
};

/** The rows a release must hold for one list, from the independent reading alone. */
function expectedFrom(name: string): { rows: ReturnType<typeof toProduct>[]; duplicates: IndependentRow[]; effectiveFrom: string } {
  const independent = readWithPdftotext(path(name));
  // What the independent reading itself says of the file, before it is compared with ours.
  expect(independent.listDates, name).toHaveLength(1);
  expect(independent.headers, name).toHaveLength(1);
  expect(independent.rows.length, name).toBe(independent.productLines);
  const header = /^Codice (.+?) Conf\.ne (€\/.+?) €\/[Cc]onf\.ne$/.exec(independent.headers[0]!)!;
  const category = CATEGORIES[header[1]!]!;
  const unit = UNITS[header[2]!]!;
  const effectiveFrom = isoOf(independent.listDates[0]!);
  const toProduct = (row: IndependentRow) => ({
    admCode: row.admCode,
    name: row.name,
    pack: row.pack,
    category,
    referencePriceCents: row.referencePriceCents,
    referenceUnit: unit,
    pricePerKgCents: unit.endsWith('kg') ? row.referencePriceCents : null,
    pricePerPackCents: row.pricePerPackCents,
    effectiveFrom,
  });
  // A code printed twice: the first row stands (no earlier release to continue), the other is reported.
  const seen = new Set<number>();
  const duplicates = independent.rows.filter((row) => seen.has(row.admCode) || (seen.add(row.admCode), false));
  const rows = independent.rows.filter((row) => !duplicates.includes(row)).map(toProduct);
  return { rows, duplicates, effectiveFrom };
}

async function buildRelease(names: string[], date: string) {
  const out = join(await tempDir(), 'release');
  const built = await runCli([
    'build',
    ...names.flatMap((name) => ['--source', path(name)]),
    '--date',
    date,
    '--out',
    out,
    '--data-dir',
    await tempDir(),
    '--json',
  ]);
  expect(built.stderr).toBe('');
  expect(built.status).toBe(0);
  const datasets = await Promise.all(
    FORMATS.map(async (format) => openDatasetFile(format, readFileSync(join(out, `dataset.${format}.gz`)))),
  );
  return { report: JSON.parse(built.stdout), datasets, manifest: JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')) };
}

/** The fields of a product the independent reading can tell. */
const READ_FIELDS = [
  'admCode',
  'name',
  'pack',
  'category',
  'referencePriceCents',
  'referenceUnit',
  'pricePerKgCents',
  'pricePerPackCents',
  'effectiveFrom',
] as const;
const fields = (product: Product) => Object.fromEntries(READ_FIELDS.map((field) => [field, product[field]]));

describe("the authority's real lists", () => {
  it('are the files the authority published (same bytes as shared/adm)', () => {
    for (const name of REAL_LISTS) {
      let original: Buffer | null = null;
      try {
        original = readFileSync(join(REPO, '../shared/adm', name));
      } catch {
        // shared/ sits beside the clone in CI and on developers' machines; elsewhere the copies stand alone.
      }
      if (original) expect(readFileSync(path(name)).equals(original), name).toBe(true);
    }
  });

  it('reach one release row for row, exactly as pdftotext -layout reads them, in all three formats', async () => {
    // Every category's latest list: the 2026 cigar list, and the 2023 lists of the four other categories.
    const names = REAL_LISTS.filter((name) => name !== 'listino-sigari-2023-10-31.pdf');
    const expected = names.flatMap((name) => expectedFrom(name).rows).sort((a, b) => a.admCode - b.admCode);
    expect(expected.length).toBeGreaterThan(3800);
    const { datasets, manifest } = await buildRelease(names, '2026-11-22');
    expect(manifest).toMatchObject({ version: '20260722.1', tariffDate: '2026-07-22', counts: { products: expected.length } });
    for (const [i, dataset] of datasets.entries()) expect((dataset as Dataset).products.map(fields), FORMATS[i]).toEqual(expected);
  });

  it('keep the first of two rows the 2023 cigar list prints under one code, and say which was left out', async () => {
    const name = 'listino-sigari-2023-10-31.pdf';
    const { rows, duplicates, effectiveFrom } = expectedFrom(name);
    expect(duplicates.map((row) => [row.admCode, row.name])).toEqual([[20727, "VEGAFINA NICARAGUA ESTELI'"]]);
    const { report, datasets } = await buildRelease([name], '2023-11-01');
    expect(effectiveFrom).toBe('2023-10-31');
    const sorted = [...rows].sort((a, b) => a.admCode - b.admCode);
    for (const [i, dataset] of datasets.entries()) expect((dataset as Dataset).products.map(fields), FORMATS[i]).toEqual(sorted);
    expect(report.duplicates).toEqual([
      expect.objectContaining({
        admCode: 20727,
        kept: expect.objectContaining({ name: 'VEGAFINA CUM LAUDE ANIVERSARIO' }),
        left: expect.objectContaining({ name: "VEGAFINA NICARAGUA ESTELI'" }),
        reason: 'printed first',
      }),
    ]);
  });

  it('keep the quirks of the 2026 cigar list as written, and read the size out of them', async () => {
    const { datasets } = await buildRelease(['listino-sigari-2026-07-22.pdf'], '2026-11-22');
    const byCode = new Map(datasets[0]!.products.map((p) => [p.admCode, p]));
    // Rows of the real list whose pack is written unusually, and one with short code and accented name.
    expect(byCode.get(21872)).toMatchObject({ pack: 'da5 pezzi', packQuantity: 5, packUnit: 'pieces', pricePerPackCents: 530 });
    expect(byCode.get(21743)).toMatchObject({ pack: 'da 20pezzi', packQuantity: 20 });
    expect(byCode.get(21551)).toMatchObject({ pack: 'de 25 pezzi', packQuantity: 25 });
    expect(byCode.get(21869)).toMatchObject({ pack: 'a 20 pezzi', packQuantity: 20 });
    expect(byCode.get(21825)).toMatchObject({ name: 'TOSCANO T', pack: 'da 6 sigari', packQuantity: 6, packUnit: 'pieces' });
    expect(byCode.get(684)).toMatchObject({ name: 'AMMEZZATI TOSCANO GARIBALDI', pricePerKgCents: 19200, pricePerPackCents: 480 });
    expect(byCode.get(3544)).toMatchObject({ name: 'BALMORAL AÑEJO XO CORONA', pricePerKgCents: 150000 });
    expect(datasets[0]!.products.filter((p) => p.packQuantity === null)).toEqual([]);
  });
});
