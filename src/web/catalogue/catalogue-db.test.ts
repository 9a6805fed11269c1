import { describe, expect, it } from 'vitest';
import type { Product } from '../../dataset/model.ts';
import { emptyHistory, listObservations, recordObservations } from '../../history/price-history.ts';
import { catalogueInMemory } from './catalogue-db.ts';
import { cigarRow } from '../../../test/helpers/rows.ts';

const product = (admCode: number, name: string, pricePerPackCents = 500): Product => cigarRow(admCode, { name, pricePerPackCents });

describe('the catalogue database', () => {
  const history = recordObservations(
    emptyHistory(),
    listObservations([product(20, 'ZETA', 450), product(30, 'ANTICO RITIRATO', 300)], '2024-03-01', 'old.pdf'),
  );
  const db = catalogueInMemory(
    {
      version: '20261101.1',
      tariffDate: '2026-11-01',
      products: [product(20, 'ZETA'), product(10, 'ALFA')],
      barcodes: [{ barcode: '8001002006849', admCode: 20, kind: 'pack', units: 1 }],
      announced: [],
    },
    history,
  );

  it('holds the names in the order searches list them: in the tariff by name, then the withdrawn', () => {
    expect(db.names.map((name) => [name.position, name.admCode, name.name])).toEqual([
      [0, 10, 'ALFA'],
      [1, 20, 'ZETA'],
      [2, 30, 'ANTICO RITIRATO'],
    ]);
    expect(db.facts).toEqual({ version: '20261101.1', tariffDate: '2026-11-01', announced: [], listed: 2 });
  });

  it('reads an entry whole when asked, its history without the sightings the page never shows', () => {
    const zeta = db.entry(1);
    expect(zeta).toMatchObject({ admCode: 20, product: { pricePerPackCents: 500 }, barcodes: [{ barcode: '8001002006849' }] });
    expect(zeta.history?.steps).toEqual([expect.objectContaining({ from: '2024-03-01', pricePerPackCents: 450 })]);
    expect(Object.keys(zeta.history!)).toEqual(['steps', 'withdrawn']);
    expect(db.entry(2)).toMatchObject({ admCode: 30, product: null, barcodes: [] });
    expect(() => db.entry(3)).toThrow('no entry 3');
  });

  it('finds the entry of an approved barcode, and none for another', () => {
    expect(db.barcodePosition('8001002006849')).toBe(1);
    expect(db.barcodePosition('8001002006856')).toBeNull();
  });
});
