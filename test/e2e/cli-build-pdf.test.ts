import { existsSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeEncryptedPdf, makeNoticePdf, makePriceListPdf, makeProsePdf, type ListRow } from '../../fixtures/adm-pdf.ts';
import { openDatasetFile } from '../../src/release/read-release.ts';
import { FORMATS } from '../../src/release/manifest.ts';
import { runCli } from '../helpers/run-cli.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const CIGARETTES: ListRow[] = [
  ['91001', 'AURORA ROSSA', 'astuccio da 20 pezzi', '300,00', '6,00'],
  ['91002', 'AURORA ROSSA', 'cartoccio da 10 pezzi', '300,00', '3,00'],
  ['91003', 'CITTÀ DI CASTELLO BLU CON UN NOME COSÌ LUNGO CHE VA A CAPO', 'da5 pezzi', '1.290,00', '6,45'],
];

async function files(entries: Record<string, Uint8Array | Promise<Uint8Array>>): Promise<string> {
  const dir = await tempDir();
  for (const [name, bytes] of Object.entries(entries)) await writeFile(join(dir, name), await bytes);
  return dir;
}

async function build(source: string, date = '2026-11-22', extra: string[] = []) {
  const out = join(await tempDir(), 'release');
  const result = await runCli(['build', '--source', source, '--date', date, '--out', out, '--data-dir', await tempDir(), ...extra]);
  return { ...result, out };
}

describe('tariff build on PDF lists and notices', () => {
  it('reads a directory of PDFs by content (names without extension too), lists over several pages, wrapped names', async () => {
    const dir = await files({
      'sigarette.pdf': makePriceListPdf({ category: 'Sigarette', date: '01/11/2026', rows: CIGARETTES, rowsPerPage: 2, wrapNames: true }),
      // The authority's addresses end in a document id: a download keeps no extension.
      '0f1c2d3e-4a5b': makePriceListPdf({
        category: 'Sigari',
        date: '22/07/2026',
        rows: [['21825', 'TOSCANO T', 'da 6 sigari', '1.500,00', '45,00']],
      }),
      'README.txt': new TextEncoder().encode('not a source'),
    });
    const result = await build(dir);
    expect(result.stderr).toContain('built 20261101.1: tariff in force from 2026-11-01, 4 products');
    const { products } = await openDatasetFile('json', readFileSync(join(result.out, 'dataset.json.gz')));
    expect(products.map((p) => [p.admCode, p.name, p.pack, p.category, p.effectiveFrom])).toEqual([
      [21825, 'TOSCANO T', 'da 6 sigari', 'cigars', '2026-07-22'],
      [91001, 'AURORA ROSSA', 'astuccio da 20 pezzi', 'cigarettes', '2026-11-01'],
      [91002, 'AURORA ROSSA', 'cartoccio da 10 pezzi', 'cigarettes', '2026-11-01'],
      [91003, 'CITTÀ DI CASTELLO BLU CON UN NOME COSÌ LUNGO CHE VA A CAPO', 'da5 pezzi', 'cigarettes', '2026-11-01'],
    ]);
  });

  it.each([
    ['with a code column', true],
    ['without a code column (matched by name and pack)', false],
  ])('applies a price-change notice %s on its date, not the day before', async (_, withCode) => {
    const dir = await files({
      'sigari.pdf': makePriceListPdf({
        category: 'Sigari',
        date: '22/07/2026',
        rows: [
          ['21825', 'TOSCANO T', 'da 6 sigari', '1.500,00', '45,00'],
          ['684', 'AMMEZZATI TOSCANO GARIBALDI', 'da 5 pezzi', '192,00', '4,80'],
        ],
      }),
      'avviso.pdf': makeNoticePdf({
        sentence: 'a decorrere dal 1° dicembre 2026',
        tables: [
          {
            category: 'Sigari',
            withCode,
            rows: [[withCode ? '21825' : null, 'TOSCANO T', 'da 6 sigari', '1.500,00', '1.600,00', '48,00']],
          },
        ],
      }),
    });
    const before = await build(dir, '2026-11-30');
    expect(before.status).toBe(0);
    expect(before.stderr).toContain('waiting: price-change notice takes effect on 2026-12-01');
    const old = await openDatasetFile('json', readFileSync(join(before.out, 'dataset.json.gz')));
    expect(old.tariffDate).toBe('2026-07-22');
    expect(old.products.find((p) => p.admCode === 21825)).toMatchObject({ pricePerPackCents: 4500, effectiveFrom: '2026-07-22' });
    // The day before, every format announces the new price, naming the notice.
    const announced = {
      admCode: 21825,
      effectiveFrom: '2026-12-01',
      pricePerPackCents: 4800,
      pricePerKgCents: 160000,
      referencePriceCents: 160000,
      referenceUnit: 'conventional_kg',
      source: 'avviso.pdf',
    };
    for (const format of FORMATS) {
      const dataset = await openDatasetFile(format, readFileSync(join(before.out, `dataset.${format}.gz`)));
      expect(dataset.announced, format).toEqual([announced]);
    }

    const on = await build(dir, '2026-12-01');
    expect(on.stderr).toContain('applied the notice of 2026-12-01 to 1 product(s)');
    const changed = await openDatasetFile('json', readFileSync(join(on.out, 'dataset.json.gz')));
    expect(changed.version).toBe('20261201.1');
    expect(changed.products.find((p) => p.admCode === 21825)).toMatchObject({
      pricePerKgCents: 160000,
      pricePerPackCents: 4800,
      effectiveFrom: '2026-12-01',
    });
    expect(changed.products.find((p) => p.admCode === 684)).toMatchObject({ pricePerPackCents: 480, effectiveFrom: '2026-07-22' });
    expect(changed.announced).toEqual([]);
  });

  it('reports notice rows that match no product or several, and a code the list does not hold', async () => {
    const dir = await files({
      'sigari.pdf': makePriceListPdf({
        category: 'Sigari',
        date: '22/07/2026',
        rows: [
          ['21847', 'ZINO NICARAGUA ROBUSTO 25', 'da 25 pezzi', '1.160,00', '145,00'],
          ['19982', 'ZINO NICARAGUA ROBUSTO 25', 'da 25 pezzi', '1.780,00', '222,50'],
        ],
      }),
      'avviso.pdf': makeNoticePdf({
        sentence: 'con decorrenza dal 1° agosto 2026',
        tables: [
          {
            category: 'Sigari',
            withCode: false,
            rows: [
              [null, 'ZINO NICARAGUA ROBUSTO 25', 'da 25 pezzi', '1.160,00', '1.200,00', '150,00'],
              [null, 'ASSENTE', 'da 5 pezzi', '1,00', '2,00', '3,00'],
            ],
          },
          { category: 'Sigari', withCode: true, rows: [['55555', 'ALTRO', 'da 5 pezzi', '1,00', '2,00', '3,00']] },
        ],
      }),
    });
    const result = await build(dir);
    expect(result.status).toBe(0);
    expect(result.stderr).toMatch(
      /notice: .*avviso\.pdf page 1 row 1 \("ZINO NICARAGUA ROBUSTO 25"\): .* matches 2 products \(codes 21847, 19982\)/,
    );
    expect(result.stderr).toMatch(/notice: .*avviso\.pdf page 1 row 2 \("ASSENTE"\): .* matches no product/);
    expect(result.stderr).toMatch(
      /notice: .*avviso\.pdf page 1 row 1 \(codice 55555 "ALTRO"\): the tariff code 55555 is not in the cigars list in force/,
    );
  });
});

describe('tariff build refuses bad PDF input, naming the file, the page and the row, and writes nothing', () => {
  const list = (rows: ListRow[], extra: Partial<Parameters<typeof makePriceListPdf>[0]> = {}) =>
    makePriceListPdf({ category: 'Sigarette', date: '01/11/2026', rows, ...extra });

  it.each([
    [
      'an unrelated document',
      () => makeProsePdf(['Circolare', 'Nessun listino qui.']),
      'source_not_price_list',
      /not a price list or price-change notice/,
    ],
    ['an encrypted PDF', makeEncryptedPdf, 'source_pdf_unreadable', /the PDF is encrypted with a password/],
    [
      'a damaged PDF',
      async () => new TextEncoder().encode('%PDF-1.7\n1 0 obj <</Type /Catalog\n%%EOF'),
      'source_pdf_damaged',
      /the PDF is damaged: it does not end as a PDF ends/,
    ],
    [
      'a code that does not read',
      () => list([...CIGARETTES.slice(0, 2), ['9100A', 'NOME', 'da 20 pezzi', '300,00', '6,00']]),
      'source_invalid',
      /page 1 row 3 \(codice 9100A "NOME"\): the code "9100A" is not a positive whole number/,
    ],
    [
      'a price written with a decimal point',
      () => list([['91001', 'NOME', 'da 20 pezzi', '300.00', '6,00']]),
      'source_invalid',
      /page 1 row 1 \(codice 91001 "NOME"\): the reference price "300\.00" is not/,
    ],
    [
      'a missing price',
      () => list([['91001', 'NOME', 'da 20 pezzi', '300,00', '']]),
      'source_invalid',
      /page 1 row 1 \(codice 91001 "NOME"\): the price per pack "" is not/,
    ],
    [
      'pages that disagree on the list date',
      () => list(CIGARETTES, { rowsPerPage: 2, pageDates: { 2: '02/11/2026' } }),
      'source_invalid',
      /the list date 2026-11-02 differs from 2026-11-01 on page 1 \(page 2\)/,
    ],
    [
      'a category the builder does not know',
      () => makePriceListPdf({ category: 'Caramelle', date: '01/11/2026', rows: CIGARETTES }),
      'source_invalid',
      /the header's category "Caramelle" is not one the builder knows/,
    ],
  ])('%s', async (_, make, code, message) => {
    const dir = await files({ 'lista.pdf': make() });
    const result = await build(join(dir, 'lista.pdf'), '2026-11-22', ['--json']);
    expect(result.status).toBe(1);
    expect(JSON.parse(result.stdout).error.code).toBe(code);
    expect(JSON.parse(result.stdout).error.message).toContain(join(dir, 'lista.pdf'));
    expect(JSON.parse(result.stdout).error.message).toMatch(message);
    expect(existsSync(result.out)).toBe(false);
  });

  it('applies no notice that states no date, and takes the date --notice-date gives it', async () => {
    const dir = await files({
      'sigari.pdf': makePriceListPdf({
        category: 'Sigari',
        date: '22/07/2026',
        rows: [['21825', 'TOSCANO T', 'da 6 sigari', '1.500,00', '45,00']],
      }),
      '1-ANTEPRIMA.pdf': makeNoticePdf({
        sentence: 'prossimamente',
        tables: [{ category: 'Sigari', withCode: true, rows: [['21825', 'TOSCANO T', 'da 6 sigari', '1.500,00', '1.600,00', '48,00']] }],
      }),
    });
    const undated = await build(dir);
    expect(undated.status).toBe(0);
    expect(undated.stderr).toMatch(
      /not applied: the price-change notice states no effective date, nor did its page \(.*1-ANTEPRIMA\.pdf\)/,
    );
    const dated = await build(dir, '2026-12-01', ['--notice-date', '1-ANTEPRIMA.pdf=2026-12-01']);
    expect(dated.status).toBe(0);
    expect(dated.stderr).toMatch(/applied the notice of 2026-12-01 to 1 product\(s\)/);
    const misnamed = await build(dir, '2026-12-01', ['--notice-date', 'ALTRO.pdf=2026-12-01']);
    expect(misnamed.status).toBe(2);
    expect(misnamed.stderr).toMatch(/no source document is named ALTRO\.pdf/);
  });

  it('keeps the first of two rows a list prints under one code, and says which it left out', async () => {
    const dir = await files({
      'lista.pdf': list([...CIGARETTES, ['91001', 'AURORA ROSSA', 'astuccio da 20 pezzi', '310,00', '6,20']], { rowsPerPage: 3 }),
    });
    const result = await build(join(dir, 'lista.pdf'), '2026-11-22', ['--json']);
    expect(result.status).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report.duplicates).toEqual([
      expect.objectContaining({
        admCode: 91001,
        reason: 'printed first',
        left: expect.objectContaining({ where: expect.stringMatching(/page 2 row 1/) }),
      }),
    ]);
    expect(
      (await openDatasetFile('json', readFileSync(join(result.out, 'dataset.json.gz')))).products.find((p) => p.admCode === 91001),
    ).toMatchObject({
      pricePerPackCents: 600,
    });
  });
});
