import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { productRow } from '../../test/helpers/rows.ts';
import type { Barcode, Product } from './model.ts';
import { applyChanges, releaseChanges } from './release-changes.ts';
import { summariseChanges } from './summarise-changes.ts';

const product = productRow;
const rows = (products: Product[], barcodes: Barcode[] = [], tariffDate = '2026-11-01') => ({ tariffDate, products, barcodes });

describe('releaseChanges', () => {
  it('gives one row per aspect that changed, with the whole product before and after', () => {
    const older = rows(
      [product(1), product(2), product(3), product(4), product(6)],
      [{ barcode: '8001001001005', admCode: 1, kind: 'pack', units: 1 }],
    );
    const newer = rows(
      [
        product(1, { name: 'NEW', pricePerPackCents: 650, pricePerKgCents: 32500, effectiveFrom: '2026-12-01' }),
        product(3, { pack: 'cartoccio da 10 pezzi', packQuantity: 10 }),
        product(4, { effectiveFrom: '2026-12-01' }),
        product(5),
        product(6, { category: 'cigarillos' }),
      ],
      [{ barcode: '8001001001005', admCode: 3, kind: 'pack', units: 1 }],
    );
    const changes = releaseChanges(older, newer);
    expect(changes.map((c) => [c.admCode, c.kind, c.barcode])).toEqual([
      [1, 'price_changed', null],
      [1, 'renamed', null],
      [1, 'barcode_removed', '8001001001005'],
      [2, 'product_removed', null],
      [3, 'repacked', null],
      [3, 'barcode_added', '8001001001005'],
      [4, 'redated', null],
      [5, 'product_added', null],
      [6, 'recategorised', null],
    ]);
    const price = changes[0]!;
    expect(price).toMatchObject({
      oldPricePerPackCents: 600,
      pricePerPackCents: 650,
      oldPricePerKgCents: 30000,
      pricePerKgCents: 32500,
      oldEffectiveFrom: '2026-11-01',
      effectiveFrom: '2026-12-01',
      oldName: 'P1',
      name: 'NEW',
    });
    // A removed product keeps its last prices; its new side is empty.
    expect(changes[3]).toMatchObject({ oldName: 'P2', oldPricePerPackCents: 600, name: null, pricePerPackCents: null });
    expect(changes[2]).toMatchObject({ barcodeKind: 'pack', units: 1, name: null, oldName: null });
    expect(summariseChanges(changes)).toMatchObject({
      priceRises: 1,
      removed: 1,
      added: 1,
      renamed: 1,
      repacked: 1,
      recategorised: 1,
      redated: 1,
      barcodesAdded: 1,
      barcodesRemoved: 1,
    });
  });

  it('says nothing about the same rows', () => {
    expect(releaseChanges(rows([product(1)]), rows([product(1)]))).toEqual([]);
  });

  it('applied to the older rows, gives the newer rows exactly, over any sequence of five releases', () => {
    const categories = ['cigarettes', 'cigars'] as const;
    const productArb = (admCode: number) =>
      fc.record({
        admCode: fc.constant(admCode),
        name: fc.constantFrom('A', 'B', 'C D'),
        category: fc.constantFrom(...categories),
        pack: fc.constantFrom('da 10 pezzi', 'da 20 pezzi', 'busta da 30 grammi'),
        packQuantity: fc.constantFrom(10, 20, 30, null),
        packUnit: fc.constantFrom('pieces' as const, 'grams' as const, null),
        pricePerKgCents: fc.integer({ min: 1, max: 100_000 }),
        pricePerPackCents: fc.integer({ min: 1, max: 5_000 }),
        effectiveFrom: fc.constantFrom('2026-07-22', '2026-11-01', '2026-12-01'),
      });
    const releaseArb = fc
      .uniqueArray(fc.integer({ min: 1, max: 30 }), { maxLength: 20 })
      .chain((codes) => fc.tuple(fc.tuple(...codes.sort((a, b) => a - b).map(productArb)), fc.constant(codes)))
      .chain(([products, codes]) =>
        fc.tuple(
          fc.constant(products as Product[]),
          fc.uniqueArray(
            fc.record({
              barcode: fc.constantFrom('80000001', '8000000000019', '8000000000026', '8000000000033'),
              admCode: codes.length > 0 ? fc.constantFrom(...codes) : fc.constant(1),
              kind: fc.constantFrom('pack' as const, 'carton' as const),
              units: fc.constantFrom(1, 10),
            }),
            { selector: (b) => b.barcode, maxLength: codes.length > 0 ? 4 : 0 },
          ),
        ),
      )
      .map(([products, barcodes]) =>
        rows(
          products,
          [...barcodes].sort((a, b) => (a.barcode < b.barcode ? -1 : 1)),
        ),
      );
    fc.assert(
      fc.property(fc.array(releaseArb, { minLength: 5, maxLength: 5 }), (releases) => {
        for (let i = 1; i < releases.length; i += 1) {
          const [older, newer] = [releases[i - 1]!, releases[i]!];
          expect(applyChanges(older, releaseChanges(older, newer))).toEqual({ products: newer.products, barcodes: newer.barcodes });
        }
      }),
      { numRuns: 300 },
    );
  });
});
