import { describe, expect, it } from 'vitest';
import type { Product } from '../../src/dataset/model.ts';
import { CatalogueIndex, type SearchResult } from '../../src/web/catalogue/catalogue-index.ts';
import { readWithPdftotext } from '../helpers/pdftotext-reading.ts';
import { REAL_LIST } from '../helpers/real-releases.ts';

// The real 2026 cigar list as poppler reads it (not as the builder does): what a search must find.
const rows = readWithPdftotext(REAL_LIST).rows;
const products: Product[] = rows.map((row) => ({
  admCode: row.admCode,
  name: row.name,
  category: 'cigars',
  pack: row.pack,
  packQuantity: 1,
  packUnit: 'pieces',
  pricePerKgCents: null,
  pricePerPackCents: row.pricePerPackCents,
  effectiveFrom: '2026-07-22',
  referencePriceCents: row.referencePriceCents,
  referenceUnit: 'kg',
}));
const scanned = products.find((p) => p.name === 'TOSCANO GARIBALDI')!;
const index = CatalogueIndex.of(
  {
    version: '20260722.1',
    tariffDate: '2026-07-22',
    products,
    barcodes: [{ barcode: '8001002004005', admCode: scanned.admCode, kind: 'pack', units: 1 }],
    announced: [],
  },
  null,
);

/** Every result of a search, page after page, as tariff codes in their order. */
function allResults(text: string): { codes: number[]; result: SearchResult } {
  const first = index.search({ text, category: null, page: 1 });
  const codes = first.entries.map((entry) => entry.admCode);
  for (let page = 2; page <= first.pages; page++) codes.push(...index.search({ text, category: null, page }).entries.map((e) => e.admCode));
  return { codes, result: first };
}

/** The codes of the rows whose name holds a word starting with each of these (a plain reading of the list). */
const rowsNamed = (...starts: RegExp[]) => rows.filter((row) => starts.every((start) => start.test(row.name))).map((row) => row.admCode);

describe('the catalogue search over the real 2026 cigar list', () => {
  it('finds what a correct spelling finds, and as the list reads', () => {
    expect(allResults('toscano').codes.sort()).toEqual(rowsNamed(/\bTOSCANO/).sort());
    expect(allResults('montecristo').codes.sort()).toEqual(rowsNamed(/\bMONTECRISTO/).sort());
    expect(allResults('romeo y julieta').codes.sort()).toEqual(rowsNamed(/\bROMEO\b/, /\bY\b/, /\bJULIETA/).sort());
    // "N°2" in all its spellings in the list: N. 2, N.2, N°2, N° 2, NO. 2.
    expect(allResults('n°2').codes.sort()).toEqual(rowsNamed(/\bNO?[.°]? ?2/i).sort());
    expect(rowsNamed(/\bTOSCANO/)).toHaveLength(77);
  });

  it.each([
    ['toscni', 'toscano'],
    ['tosacno', 'toscano'],
    ['monte cristo', 'montecristo'],
    ['nº 2', 'n°2'],
    ['n2', 'n°2'],
    ['romeo julieta', 'romeo y julieta'],
  ])('finds for %j the products %j finds, those first', (typed, correct) => {
    const expected = allResults(correct).codes;
    const found = allResults(typed).codes;
    expect(expected.length).toBeGreaterThan(0);
    expect(new Set(found.slice(0, expected.length))).toEqual(new Set(expected));
  });

  it('finds a product alone by its tariff code and by its barcode', () => {
    expect(allResults(String(scanned.admCode))).toMatchObject({ codes: [scanned.admCode], result: { matchedBy: 'code' } });
    expect(allResults('8001002004005')).toMatchObject({ codes: [scanned.admCode], result: { matchedBy: 'barcode' } });
  });

  it('finds nothing for a nonsense word, and suggests the names closest to it', () => {
    const { codes, result } = allResults('qwzxv');
    expect(codes).toEqual([]);
    expect(result.suggestions.length).toBeGreaterThan(0);
    // The word that matched picks the names; the one that did not cannot.
    const suggested = allResults('toscano qwzxv').result.suggestions;
    expect(suggested).toHaveLength(5);
    for (const name of suggested) expect(name).toMatch(/\bTOSCANO\b/);
  });
});
