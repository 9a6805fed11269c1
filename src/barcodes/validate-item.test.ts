import { describe, expect, it } from 'vitest';
import { checkItem } from './validate-item.ts';

const tariff = (code: number) => code === 1001;
const check = (item: unknown, type: 'User' | 'Supplier' | 'Integration' = 'User') => checkItem(item, type, tariff);

describe('checkItem', () => {
  it('accepts a complete item and applies the defaults', () => {
    expect(check({ barcode: '08001001001005', admCode: 1001 })).toEqual({
      ok: true,
      candidate: { barcode: '08001001001005', gtin14: '08001001001005', admCode: 1001, kind: 'pack', units: 1, contributorRef: null },
    });
    expect(
      check({ barcode: '8001001001012', admCode: 1001, kind: 'carton', units: 10, contributorRef: 'pos-1:a_b.c' }, 'Integration'),
    ).toMatchObject({ ok: true });
  });

  it.each([
    [{ admCode: 1001 }, 'invalid_barcode'],
    [{ barcode: 8001001001005, admCode: 1001 }, 'invalid_barcode'],
    ['8001001001005', 'invalid_barcode'],
    [{ barcode: '800100100100', admCode: 1001 }, 'invalid_checksum'],
    [{ barcode: '9780000000002', admCode: 1001 }, 'unsupported_barcode'],
    [{ barcode: '8001001001005', admCode: 9 }, 'unknown_adm_code'],
    [{ barcode: '8001001001005', admCode: '1001' }, 'unknown_adm_code'],
    [{ barcode: '8001001001005' }, 'unknown_adm_code'],
    [{ barcode: '8001001001005', admCode: 1001, kind: 'box' }, 'invalid_kind'],
    [{ barcode: '8001001001005', admCode: 1001, units: 2 }, 'invalid_units'],
    [{ barcode: '8001001001005', admCode: 1001, kind: 'carton' }, 'invalid_units'],
    [{ barcode: '8001001001005', admCode: 1001, kind: 'carton', units: 1001 }, 'invalid_units'],
    [{ barcode: '8001001001005', admCode: 1001, kind: 'carton', units: '10' }, 'invalid_units'],
    [{ barcode: '8001001001005', admCode: 1001, contributorRef: 'x' }, 'contributor_ref_not_allowed'],
  ])('rejects %j with %s', (item, reason) => {
    expect(check(item)).toMatchObject({ ok: false, reason });
  });

  it.each(['', 'a'.repeat(65), 'with space', 'à', 42])('rejects the contributor reference %j of an integration', (ref) => {
    expect(check({ barcode: '8001001001005', admCode: 1001, contributorRef: ref }, 'Integration')).toMatchObject({
      ok: false,
      reason: 'invalid_contributor_ref',
    });
  });

  it('checks in the documented order: barcode before tariff code before kind before units', () => {
    expect(check({ barcode: 'x', admCode: 9, kind: 'box', units: 0 })).toMatchObject({ reason: 'invalid_barcode' });
    expect(check({ barcode: '8001001001005', admCode: 9, kind: 'box' })).toMatchObject({ reason: 'unknown_adm_code' });
    expect(check({ barcode: '8001001001005', admCode: 1001, kind: 'box', units: 0 })).toMatchObject({ reason: 'invalid_kind' });
  });

  it('echoes the barcode as sent, numbers written out', () => {
    expect(check({ barcode: 8001001001005, admCode: 1001 })).toMatchObject({ barcode: '8001001001005' });
    expect(check({ barcode: { x: 1 } })).toMatchObject({ barcode: '' });
  });
});
