import type { Category } from '../source/categories.ts';
import type { PackUnit } from '../source/parse-pack.ts';
import type { ReferenceUnit } from '../source/reference-unit.ts';

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
  /** The price per kilogram (real or conventional, as `referenceUnit` says) when the list gives one; null otherwise. */
  pricePerKgCents: number | null;
  pricePerPackCents: number;
  effectiveFrom: string;
  /** The list's reference price, whatever it is per (kg, conventional kg, 1,000 pieces…). */
  referencePriceCents: number | null;
  /** What the reference price is per: `conventional_kg`, `kg`, `1000_pieces`… (docs/dataset.md). */
  referenceUnit: ReferenceUnit | null;
}

/** An approved match from a retail barcode to a tariff code. */
export interface Barcode {
  barcode: string;
  admCode: number;
  kind: BarcodeKind;
  units: number;
}

/**
 * A new price a notice announces for a day that has not come yet: the product's prices from
 * `effectiveFrom`, so a till can switch at midnight without a download. `source` is the notice (its
 * address, or its file name in a local build), as the manifest's provenance names it.
 */
export interface AnnouncedPrice {
  admCode: number;
  effectiveFrom: string;
  pricePerPackCents: number;
  pricePerKgCents: number | null;
  referencePriceCents: number;
  referenceUnit: ReferenceUnit;
  source: string;
}

/**
 * What a change row says changed. Product rows: `product_added`, `product_removed`, `price_changed`,
 * `renamed`, `repacked` (pack text, quantity or unit), `recategorised`, and `redated` when only the
 * effective date moved (a new list re-dates every product). A product whose price and name both
 * changed has two rows. A barcode matched again differently is `barcode_removed` then `barcode_added`.
 */
export const CHANGE_KINDS = [
  'product_added',
  'product_removed',
  'price_changed',
  'renamed',
  'repacked',
  'recategorised',
  'redated',
  'barcode_added',
  'barcode_removed',
] as const;
export type ChangeKind = (typeof CHANGE_KINDS)[number];

/** A product's fields other than its code, as they were (`old…`) or are in a change row. */
export interface ProductState {
  name: string | null;
  category: Category | null;
  pack: string | null;
  packQuantity: number | null;
  packUnit: PackUnit | null;
  pricePerKgCents: number | null;
  pricePerPackCents: number | null;
  effectiveFrom: string | null;
  referencePriceCents: number | null;
  referenceUnit: ReferenceUnit | null;
}

/** The same fields named as they were in the compared release: `name` → `oldName`. */
export type OldProductState = { [K in keyof ProductState as `old${Capitalize<K>}`]: ProductState[K] };

/**
 * One row of a release's `changes`: flat, so the three formats hold it the same way. Product rows
 * carry the whole product as it was in the compared release (`old…`, null when added) and as it is
 * in this one (unprefixed, null when removed); barcode rows carry the match and null product fields.
 */
export type Change = {
  kind: ChangeKind;
  admCode: number;
  barcode: string | null;
  barcodeKind: BarcodeKind | null;
  units: number | null;
} & OldProductState &
  ProductState;

/**
 * The content of a release, in canonical order (products by code, barcodes by barcode, changes by
 * code, announced prices by day then code).
 */
export interface Dataset {
  schemaVersion: typeof SCHEMA_VERSION;
  version: string;
  tariffDate: string;
  source: string;
  /** The version the changes were computed against; null for a first release (nothing to compare). */
  changesSince: string | null;
  products: Product[];
  barcodes: Barcode[];
  changes: Change[];
  /** Prices announced by notices for days after `tariffDate`'s build day (empty when none; absent before they were added). */
  announced: AnnouncedPrice[];
}

/** A dataset before it has a version and its changes: what the builder computes from the sources. */
export type DatasetContent = Omit<Dataset, 'version' | 'changesSince' | 'changes'>;

/** A product with its fields in canonical order, so renderings never depend on how an object was built. */
export function productFields(p: Product): Product {
  return {
    admCode: p.admCode,
    name: p.name,
    category: p.category,
    pack: p.pack,
    packQuantity: p.packQuantity,
    packUnit: p.packUnit,
    pricePerKgCents: p.pricePerKgCents,
    pricePerPackCents: p.pricePerPackCents,
    effectiveFrom: p.effectiveFrom,
    referencePriceCents: p.referencePriceCents,
    referenceUnit: p.referenceUnit,
  };
}

/** A change row with its fields in canonical order (the order of the `changes` table's columns). */
export function changeFields(c: Change): Change {
  return {
    kind: c.kind,
    admCode: c.admCode,
    barcode: c.barcode,
    barcodeKind: c.barcodeKind,
    units: c.units,
    oldName: c.oldName,
    oldCategory: c.oldCategory,
    oldPack: c.oldPack,
    oldPackQuantity: c.oldPackQuantity,
    oldPackUnit: c.oldPackUnit,
    oldPricePerKgCents: c.oldPricePerKgCents,
    oldPricePerPackCents: c.oldPricePerPackCents,
    oldEffectiveFrom: c.oldEffectiveFrom,
    name: c.name,
    category: c.category,
    pack: c.pack,
    packQuantity: c.packQuantity,
    packUnit: c.packUnit,
    pricePerKgCents: c.pricePerKgCents,
    pricePerPackCents: c.pricePerPackCents,
    effectiveFrom: c.effectiveFrom,
    // Added later than the fields above: last, so that readers that take columns by position keep working.
    oldReferencePriceCents: c.oldReferencePriceCents,
    oldReferenceUnit: c.oldReferenceUnit,
    referencePriceCents: c.referencePriceCents,
    referenceUnit: c.referenceUnit,
  };
}

/** An announced price with its fields in canonical order. */
export function announcedFields(a: AnnouncedPrice): AnnouncedPrice {
  return {
    admCode: a.admCode,
    effectiveFrom: a.effectiveFrom,
    pricePerPackCents: a.pricePerPackCents,
    pricePerKgCents: a.pricePerKgCents,
    referencePriceCents: a.referencePriceCents,
    referenceUnit: a.referenceUnit,
    source: a.source,
  };
}

/** A barcode with its fields in canonical order. */
export function barcodeFields(b: Barcode): Barcode {
  return { barcode: b.barcode, admCode: b.admCode, kind: b.kind, units: b.units };
}
