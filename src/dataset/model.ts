import type { Category } from '../source/categories.ts';
import type { PackUnit } from '../source/parse-pack.ts';

/** Version of the data shape, the same in the three formats and in the manifest. */
export const SCHEMA_VERSION = 2;

/** The authority that issues the tariff: the manifest's constant `source`. */
export const SOURCE_NAME = 'Agenzia delle Dogane e dei Monopoli';

export type BarcodeKind = 'pack' | 'carton';

/** One product of the tariff in force. Money is in integer euro cents. */
export interface Product {
  admCode: number;
  name: string;
  category: Category;
  pack: string;
  packQuantity: number | null;
  packUnit: PackUnit | null;
  pricePerKgCents: number;
  pricePerPackCents: number;
  effectiveFrom: string;
}

/** An approved match from a retail barcode to a tariff code. */
export interface Barcode {
  barcode: string;
  admCode: number;
  kind: BarcodeKind;
  units: number;
}

/** The content of a release, in canonical order (products by code, barcodes by barcode). */
export interface Dataset {
  schemaVersion: typeof SCHEMA_VERSION;
  version: string;
  tariffDate: string;
  source: string;
  products: Product[];
  barcodes: Barcode[];
}

/** A dataset before it has a version: what the builder computes from the sources. */
export type DatasetContent = Omit<Dataset, 'version'>;

/** A product with its fields in canonical order, so renderings never depend on how an object was built. */
export function productFields(p: Product): Product {
  return {
    admCode: p.admCode, name: p.name, category: p.category, pack: p.pack, packQuantity: p.packQuantity, packUnit: p.packUnit,
    pricePerKgCents: p.pricePerKgCents, pricePerPackCents: p.pricePerPackCents, effectiveFrom: p.effectiveFrom,
  };
}

/** A barcode with its fields in canonical order. */
export function barcodeFields(b: Barcode): Barcode {
  return { barcode: b.barcode, admCode: b.admCode, kind: b.kind, units: b.units };
}
