import { isDeepStrictEqual } from 'node:util';
import type { Barcode, Dataset, Product } from './model.ts';

export interface PriceChange {
  admCode: number;
  name: string;
  oldPricePerPackCents: number;
  newPricePerPackCents: number;
  oldPricePerKgCents: number;
  newPricePerKgCents: number;
}

export interface DatasetDiff {
  identical: boolean;
  old: { version: string; tariffDate: string };
  new: { version: string; tariffDate: string };
  products: {
    added: Product[];
    removed: Product[];
    renamed: { admCode: number; oldName: string; newName: string }[];
    priceChanged: PriceChange[];
    /** Other fields that changed (category, pack, effectiveFrom), by tariff code. */
    otherChanged: { admCode: number; name: string; fields: OtherField[]; old: Partial<Product>; new: Partial<Product> }[];
  };
  barcodes: {
    added: Barcode[];
    removed: Barcode[];
    changed: { barcode: string; old: Omit<Barcode, 'barcode'>; new: Omit<Barcode, 'barcode'> }[];
  };
}

/** What the comparison reads of a release: its rows, not the changes it carries. */
type Compared = Pick<Dataset, 'version' | 'tariffDate' | 'products' | 'barcodes'>;

const OTHER_FIELDS = ['category', 'pack', 'packQuantity', 'packUnit', 'effectiveFrom'] as const;
type OtherField = (typeof OTHER_FIELDS)[number];

/** What changed between two releases, for maintainers. The version itself is not a change. */
export function diffDatasets(older: Compared, newer: Compared): DatasetDiff {
  const oldProducts = new Map(older.products.map((p) => [p.admCode, p]));
  const newProducts = new Map(newer.products.map((p) => [p.admCode, p]));
  const products: DatasetDiff['products'] = { added: [], removed: [], renamed: [], priceChanged: [], otherChanged: [] };
  for (const product of newer.products) if (!oldProducts.has(product.admCode)) products.added.push(product);
  for (const before of older.products) {
    const after = newProducts.get(before.admCode);
    if (!after) {
      products.removed.push(before);
      continue;
    }
    if (before.name !== after.name) products.renamed.push({ admCode: before.admCode, oldName: before.name, newName: after.name });
    if (before.pricePerPackCents !== after.pricePerPackCents || before.pricePerKgCents !== after.pricePerKgCents) {
      products.priceChanged.push({
        admCode: after.admCode, name: after.name,
        oldPricePerPackCents: before.pricePerPackCents, newPricePerPackCents: after.pricePerPackCents,
        oldPricePerKgCents: before.pricePerKgCents, newPricePerKgCents: after.pricePerKgCents,
      });
    }
    const fields = OTHER_FIELDS.filter((field) => before[field] !== after[field]);
    if (fields.length > 0) {
      const pick = (p: Product) => Object.fromEntries(fields.map((field) => [field, p[field]])) as Partial<Product>;
      products.otherChanged.push({ admCode: after.admCode, name: after.name, fields, old: pick(before), new: pick(after) });
    }
  }

  const oldBarcodes = new Map(older.barcodes.map((b) => [b.barcode, b]));
  const newBarcodes = new Map(newer.barcodes.map((b) => [b.barcode, b]));
  const barcodes: DatasetDiff['barcodes'] = { added: [], removed: [], changed: [] };
  for (const barcode of newer.barcodes) if (!oldBarcodes.has(barcode.barcode)) barcodes.added.push(barcode);
  for (const before of older.barcodes) {
    const after = newBarcodes.get(before.barcode);
    if (!after) barcodes.removed.push(before);
    else if (!isDeepStrictEqual(before, after)) {
      const { barcode, ...oldMatch } = before;
      const { barcode: _, ...newMatch } = after;
      barcodes.changed.push({ barcode, old: oldMatch, new: newMatch });
    }
  }

  const identical =
    older.tariffDate === newer.tariffDate &&
    Object.values(products).every((list) => list.length === 0) &&
    Object.values(barcodes).every((list) => list.length === 0);
  return { identical, old: { version: older.version, tariffDate: older.tariffDate }, new: { version: newer.version, tariffDate: newer.tariffDate }, products, barcodes };
}
