import type { Barcode, Dataset, Product } from '../../src/dataset/model.ts';
import type { Manifest } from '../../src/release/manifest.ts';

/** A product row for unit tests: a pack of 20 cigarettes at 6,00 €, from 1 November 2026, unless told otherwise. */
export const productRow = (admCode: number, overrides: Partial<Product> = {}): Product => ({
  admCode,
  name: `P${admCode}`,
  category: 'cigarettes',
  pack: 'astuccio da 20 pezzi',
  packQuantity: 20,
  packUnit: 'pieces',
  pricePerKgCents: 30000,
  pricePerPackCents: 600,
  effectiveFrom: '2026-11-01',
  referencePriceCents: overrides.pricePerKgCents ?? 30000,
  referenceUnit: 'conventional_kg',
  ...overrides,
});

/** The same, as a cigar in a box of 5 (the real list's category). */
export const cigarRow = (admCode: number, overrides: Partial<Product> = {}): Product =>
  productRow(admCode, { category: 'cigars', pack: 'da 5 pezzi', packQuantity: 5, ...overrides });

/** A dataset of schema 2 holding these rows and nothing else: no changes, no announced prices. */
export const datasetOf = (version: string, rows: { tariffDate: string; products: Product[]; barcodes?: Barcode[] }): Dataset => ({
  schemaVersion: 2,
  version,
  tariffDate: rows.tariffDate,
  source: 'ADM',
  changesSince: null,
  products: rows.products,
  barcodes: rows.barcodes ?? [],
  changes: [],
  announced: [],
});

/** A manifest of section 2.1 with made-up digests, for tests that need its shape, not real files. */
export const manifestOf = (version: string, overrides: Partial<Manifest> = {}): Manifest => ({
  version,
  tariffDate: `${version.slice(0, 4)}-${version.slice(4, 6)}-${version.slice(6, 8)}`,
  generatedAt: '2026-11-22T06:00:00+01:00',
  source: 'Agenzia delle Dogane e dei Monopoli',
  schemaVersion: 2,
  counts: { products: 14, barcodes: 10 },
  files: {
    json: { url: 'https://t.example/v1/dataset.json.gz', sha256: 'a'.repeat(64), size: 10 },
    sqlite: { url: 'https://t.example/v1/dataset.sqlite.gz', sha256: 'b'.repeat(64), size: 10 },
    docdb: { url: 'https://t.example/v1/dataset.docdb.gz', sha256: 'c'.repeat(64), size: 10, docdbVersion: '4.1.2', schemaVersion: 2 },
  },
  ...overrides,
});
