import { describe, expect, it } from 'vitest';
import { datasetOf, productRow } from '../../test/helpers/rows.ts';
import { diffDatasets } from './diff-datasets.ts';
import type { Dataset, Product } from './model.ts';

const product = productRow;
const dataset = (version: string, products: Product[], barcodes: Dataset['barcodes'] = []): Dataset =>
  datasetOf(version, { tariffDate: '2026-11-01', products, barcodes });

describe('diffDatasets', () => {
  it('finds nothing between the same content under two versions', () => {
    const diff = diffDatasets(dataset('20261101.1', [product(1)]), dataset('20261101.2', [product(1)]));
    expect(diff.identical).toBe(true);
  });

  it('reports products added, removed, renamed, repriced and otherwise changed, and barcode changes', () => {
    const older = dataset(
      '20261101.1',
      [product(1), product(2), product(3), product(4)],
      [
        { barcode: '8001001001005', admCode: 1, kind: 'pack', units: 1 },
        { barcode: '8001001001012', admCode: 1, kind: 'carton', units: 10 },
      ],
    );
    const newer = dataset(
      '20261101.2',
      [product(1, { name: 'NEW' }), product(2, { pricePerPackCents: 650 }), product(4, { pack: 'cartoccio da 10 pezzi' }), product(5)],
      [
        { barcode: '8001001001012', admCode: 2, kind: 'carton', units: 10 },
        { barcode: '8001001002002', admCode: 5, kind: 'pack', units: 1 },
      ],
    );
    const diff = diffDatasets(older, newer);
    expect(diff.identical).toBe(false);
    expect(diff.products.added.map((p) => p.admCode)).toEqual([5]);
    expect(diff.products.removed.map((p) => p.admCode)).toEqual([3]);
    expect(diff.products.renamed).toEqual([{ admCode: 1, category: 'cigarettes', oldName: 'P1', newName: 'NEW' }]);
    expect(diff.products.priceChanged).toEqual([
      {
        admCode: 2,
        name: 'P2',
        category: 'cigarettes',
        oldPricePerPackCents: 600,
        newPricePerPackCents: 650,
        oldPricePerKgCents: 30000,
        newPricePerKgCents: 30000,
        oldReferencePriceCents: 30000,
        newReferencePriceCents: 30000,
        referenceUnit: 'conventional_kg',
      },
    ]);
    expect(diff.products.otherChanged).toEqual([
      { admCode: 4, name: 'P4', fields: ['pack'], old: { pack: 'astuccio da 20 pezzi' }, new: { pack: 'cartoccio da 10 pezzi' } },
    ]);
    // Each barcode with its product's category: the newer release's, the older's for a product it removed.
    expect(diff.barcodes.added).toEqual([{ barcode: '8001001002002', admCode: 5, kind: 'pack', units: 1, category: 'cigarettes' }]);
    expect(diff.barcodes.removed).toEqual([{ barcode: '8001001001005', admCode: 1, kind: 'pack', units: 1, category: 'cigarettes' }]);
    expect(diff.barcodes.changed).toEqual([
      {
        barcode: '8001001001012',
        category: 'cigarettes',
        old: { admCode: 1, kind: 'carton', units: 10 },
        new: { admCode: 2, kind: 'carton', units: 10 },
      },
    ]);
  });

  it('reports no change when a release of an older builder, without reference prices, meets one with them', () => {
    const older = dataset('20261101.1', [product(1, { referencePriceCents: null, referenceUnit: null })]);
    const newer = dataset('20261101.2', [product(1)]);
    expect(diffDatasets(older, newer).identical).toBe(true);
    // A reference price that was known and moved is a price change, even with the pack price the same.
    const moved = dataset('20261101.3', [product(1, { referencePriceCents: 31000 })]);
    expect(diffDatasets(newer, moved).products.priceChanged.map((c) => [c.oldReferencePriceCents, c.newReferencePriceCents])).toEqual([
      [30000, 31000],
    ]);
  });
});
