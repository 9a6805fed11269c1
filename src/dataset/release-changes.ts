import { diffDatasets } from './diff-datasets.ts';
import { CHANGE_KINDS, type Barcode, type Change, type ChangeKind, type DatasetContent, type Product, type ProductState } from './model.ts';

type Rows = Pick<DatasetContent, 'tariffDate' | 'products' | 'barcodes'>;

const NO_PRODUCT: ProductState = {
  name: null,
  category: null,
  pack: null,
  packQuantity: null,
  packUnit: null,
  pricePerKgCents: null,
  pricePerPackCents: null,
  effectiveFrom: null,
  referencePriceCents: null,
  referenceUnit: null,
};
const KIND_ORDER = new Map<ChangeKind, number>(CHANGE_KINDS.map((kind, i) => [kind, i]));

const stateOf = (product: Product | undefined): ProductState =>
  product
    ? {
        name: product.name,
        category: product.category,
        pack: product.pack,
        packQuantity: product.packQuantity,
        packUnit: product.packUnit,
        pricePerKgCents: product.pricePerKgCents,
        pricePerPackCents: product.pricePerPackCents,
        effectiveFrom: product.effectiveFrom,
        referencePriceCents: product.referencePriceCents,
        referenceUnit: product.referenceUnit,
      }
    : NO_PRODUCT;

function productChange(kind: ChangeKind, admCode: number, before: Product | undefined, after: Product | undefined): Change {
  const old = stateOf(before);
  const now = stateOf(after);
  return {
    kind,
    admCode,
    barcode: null,
    barcodeKind: null,
    units: null,
    oldName: old.name,
    oldCategory: old.category,
    oldPack: old.pack,
    oldPackQuantity: old.packQuantity,
    oldPackUnit: old.packUnit,
    oldPricePerKgCents: old.pricePerKgCents,
    oldPricePerPackCents: old.pricePerPackCents,
    oldEffectiveFrom: old.effectiveFrom,
    oldReferencePriceCents: old.referencePriceCents,
    oldReferenceUnit: old.referenceUnit,
    ...now,
  };
}

const barcodeChange = (kind: 'barcode_added' | 'barcode_removed', b: Barcode): Change => ({
  ...productChange(kind, b.admCode, undefined, undefined),
  barcode: b.barcode,
  barcodeKind: b.kind,
  units: b.units,
});

/**
 * The changes a release carries: what a client must do to its copy of `older` to get `newer`'s rows,
 * in canonical order (by tariff code, then kind, then barcode). Derived from the maintainers' diff
 * so the two never disagree on what changed.
 */
export function releaseChanges(older: Rows, newer: Rows): Change[] {
  const diff = diffDatasets({ ...older, version: '' }, { ...newer, version: '' });
  const before = new Map(older.products.map((p) => [p.admCode, p]));
  const after = new Map(newer.products.map((p) => [p.admCode, p]));
  const aspects = new Map<number, Set<ChangeKind>>();
  const mark = (admCode: number, kind: ChangeKind) => aspects.set(admCode, (aspects.get(admCode) ?? new Set()).add(kind));

  for (const p of diff.products.added) mark(p.admCode, 'product_added');
  for (const p of diff.products.removed) mark(p.admCode, 'product_removed');
  for (const p of diff.products.priceChanged) mark(p.admCode, 'price_changed');
  for (const p of diff.products.renamed) mark(p.admCode, 'renamed');
  for (const p of diff.products.otherChanged) {
    if (p.fields.some((f) => f === 'pack' || f === 'packQuantity' || f === 'packUnit')) mark(p.admCode, 'repacked');
    if (p.fields.includes('category')) mark(p.admCode, 'recategorised');
  }
  // A new effective date is news only when nothing else about the product changed: a price
  // change's row already says from when it applies.
  for (const p of diff.products.otherChanged) if (p.fields.includes('effectiveFrom') && !aspects.has(p.admCode)) mark(p.admCode, 'redated');

  const changes: Change[] = [];
  for (const [admCode, kinds] of aspects)
    for (const kind of kinds) changes.push(productChange(kind, admCode, before.get(admCode), after.get(admCode)));
  for (const b of diff.barcodes.removed) changes.push(barcodeChange('barcode_removed', b));
  for (const b of diff.barcodes.added) changes.push(barcodeChange('barcode_added', b));
  for (const { barcode, old, new: now } of diff.barcodes.changed) {
    changes.push(barcodeChange('barcode_removed', { barcode, ...old }), barcodeChange('barcode_added', { barcode, ...now }));
  }
  return changes.sort(compareChanges);
}

function compareChanges(a: Change, b: Change): number {
  return (
    a.admCode - b.admCode ||
    KIND_ORDER.get(a.kind)! - KIND_ORDER.get(b.kind)! ||
    ((a.barcode ?? '') < (b.barcode ?? '') ? -1 : (a.barcode ?? '') > (b.barcode ?? '') ? 1 : 0)
  );
}

/**
 * Applies a release's changes to the rows of the release they were computed against: what a client
 * holding the older copy does instead of downloading the whole file. Pure; the input is not modified.
 */
export function applyChanges(
  rows: Pick<Rows, 'products' | 'barcodes'>,
  changes: readonly Change[],
): { products: Product[]; barcodes: Barcode[] } {
  const products = new Map(rows.products.map((p) => [p.admCode, p]));
  const barcodes = new Map(rows.barcodes.map((b) => [b.barcode, b]));
  for (const change of changes) {
    if (change.kind === 'barcode_removed') barcodes.delete(change.barcode!);
    else if (change.kind === 'product_removed') products.delete(change.admCode);
    else if (change.kind !== 'barcode_added') products.set(change.admCode, productOf(change));
  }
  // Additions after removals: a barcode matched again appears as a removal and an addition.
  for (const change of changes) {
    if (change.kind === 'barcode_added')
      barcodes.set(change.barcode!, { barcode: change.barcode!, admCode: change.admCode, kind: change.barcodeKind!, units: change.units! });
  }
  return {
    products: [...products.values()].sort((a, b) => a.admCode - b.admCode),
    barcodes: [...barcodes.values()].sort((a, b) => (a.barcode < b.barcode ? -1 : a.barcode > b.barcode ? 1 : 0)),
  };
}

function productOf(change: Change): Product {
  return {
    admCode: change.admCode,
    name: change.name!,
    category: change.category!,
    pack: change.pack!,
    packQuantity: change.packQuantity,
    packUnit: change.packUnit,
    pricePerKgCents: change.pricePerKgCents,
    pricePerPackCents: change.pricePerPackCents!,
    effectiveFrom: change.effectiveFrom!,
    referencePriceCents: change.referencePriceCents,
    referenceUnit: change.referenceUnit,
  };
}
