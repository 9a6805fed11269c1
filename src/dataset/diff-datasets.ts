import type { Category } from '../source/categories.ts';
import type { Barcode, Dataset, Product } from './model.ts';

export interface PriceChange {
  admCode: number;
  name: string;
  category: Category;
  oldPricePerPackCents: number;
  newPricePerPackCents: number;
  oldPricePerKgCents: number | null;
  newPricePerKgCents: number | null;
  oldReferencePriceCents: number | null;
  newReferencePriceCents: number | null;
  /** The unit of the new reference price (a change of unit alone is in `otherChanged`). */
  referenceUnit: string | null;
}

export interface DatasetDiff {
  identical: boolean;
  old: { version: string; tariffDate: string };
  new: { version: string; tariffDate: string };
  products: {
    added: Product[];
    removed: Product[];
    renamed: { admCode: number; category: Category; oldName: string; newName: string }[];
    priceChanged: PriceChange[];
    /** Other fields that changed (category, pack, effectiveFrom), by tariff code. */
    otherChanged: { admCode: number; name: string; fields: OtherField[]; old: Partial<Product>; new: Partial<Product> }[];
  };
  barcodes: {
    added: CategorisedBarcode[];
    removed: CategorisedBarcode[];
    changed: { barcode: string; category: Category | null; old: Omit<Barcode, 'barcode'>; new: Omit<Barcode, 'barcode'> }[];
  };
}

/** A barcode with the category of the product its match names (the newer release's, else the older's; null in neither). */
export type CategorisedBarcode = Barcode & { category: Category | null };

/**
 * Releases built before the reference price existed read with it null: gaining it is no change of
 * the tariff, so it is not reported as one (docs/dataset.md, compatibility).
 */
const knewReference = (product: Product) => product.referenceUnit !== null;

/** What the comparison reads of a release: its rows, not the changes it carries. */
type Compared = Pick<Dataset, 'version' | 'tariffDate' | 'products' | 'barcodes'>;

const OTHER_FIELDS = ['category', 'pack', 'packQuantity', 'packUnit', 'referenceUnit', 'effectiveFrom'] as const;
type OtherField = (typeof OTHER_FIELDS)[number];

/**
 * Walks two lists in key order side by side: what only the older has, only the newer has, and
 * pairs. Releases keep their rows in key order, so this needs no index (a first barcode import
 * compares 100,000 rows); lists out of order are sorted first.
 */
function mergeByKey<T, K extends number | string>(older: readonly T[], newer: readonly T[], key: (row: T) => K) {
  const ordered = (rows: readonly T[]) =>
    rows.every((row, i) => i === 0 || key(rows[i - 1]!) < key(row))
      ? rows
      : [...rows].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
  const [a, b] = [ordered(older), ordered(newer)];
  const onlyOld: T[] = [];
  const onlyNew: T[] = [];
  const pairs: [T, T][] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (j >= b.length || (i < a.length && key(a[i]!) < key(b[j]!))) onlyOld.push(a[i++]!);
    else if (i >= a.length || key(b[j]!) < key(a[i]!)) onlyNew.push(b[j++]!);
    else pairs.push([a[i++]!, b[j++]!]);
  }
  return { onlyOld, onlyNew, pairs };
}

/** What changed between two releases, for maintainers. The version itself is not a change. */
export function diffDatasets(older: Compared, newer: Compared): DatasetDiff {
  const productRows = mergeByKey(older.products, newer.products, (p) => p.admCode);
  const products: DatasetDiff['products'] = {
    added: productRows.onlyNew,
    removed: productRows.onlyOld,
    renamed: [],
    priceChanged: [],
    otherChanged: [],
  };
  for (const [before, after] of productRows.pairs) {
    if (before.name !== after.name)
      products.renamed.push({ admCode: before.admCode, category: after.category, oldName: before.name, newName: after.name });
    if (
      before.pricePerPackCents !== after.pricePerPackCents ||
      before.pricePerKgCents !== after.pricePerKgCents ||
      (knewReference(before) && before.referencePriceCents !== after.referencePriceCents)
    ) {
      products.priceChanged.push({
        admCode: after.admCode,
        name: after.name,
        category: after.category,
        oldPricePerPackCents: before.pricePerPackCents,
        newPricePerPackCents: after.pricePerPackCents,
        oldPricePerKgCents: before.pricePerKgCents,
        newPricePerKgCents: after.pricePerKgCents,
        oldReferencePriceCents: before.referencePriceCents,
        newReferencePriceCents: after.referencePriceCents,
        referenceUnit: after.referenceUnit,
      });
    }
    const fields = OTHER_FIELDS.filter((field) => before[field] !== after[field] && (field !== 'referenceUnit' || knewReference(before)));
    if (fields.length > 0) {
      const pick = (p: Product) => Object.fromEntries(fields.map((field) => [field, p[field]])) as Partial<Product>;
      products.otherChanged.push({ admCode: after.admCode, name: after.name, fields, old: pick(before), new: pick(after) });
    }
  }

  // Each barcode counted under its product's category in the summaries (diff-sections.ts).
  const categories = new Map<number, Category>([
    ...older.products.map((p) => [p.admCode, p.category] as const),
    ...newer.products.map((p) => [p.admCode, p.category] as const),
  ]);
  const categorised = (b: Barcode): CategorisedBarcode => ({ ...b, category: categories.get(b.admCode) ?? null });
  const barcodeRows = mergeByKey(older.barcodes, newer.barcodes, (b) => b.barcode);
  const barcodes: DatasetDiff['barcodes'] = {
    added: barcodeRows.onlyNew.map(categorised),
    removed: barcodeRows.onlyOld.map(categorised),
    changed: [],
  };
  for (const [before, after] of barcodeRows.pairs) {
    if (before.admCode !== after.admCode || before.kind !== after.kind || before.units !== after.units) {
      const { barcode, ...oldMatch } = before;
      const { barcode: _, ...newMatch } = after;
      barcodes.changed.push({ barcode, category: categorised(after).category, old: oldMatch, new: newMatch });
    }
  }

  const identical =
    older.tariffDate === newer.tariffDate &&
    Object.values(products).every((list) => list.length === 0) &&
    Object.values(barcodes).every((list) => list.length === 0);
  return {
    identical,
    old: { version: older.version, tariffDate: older.tariffDate },
    new: { version: newer.version, tariffDate: newer.tariffDate },
    products,
    barcodes,
  };
}
