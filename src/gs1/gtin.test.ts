import fc from 'fast-check';
import { isValid as independentIsValid } from 'gtin';
import { describe, expect, it } from 'vitest';
import { canonicalGtin, checkGtin, gs1CheckDigit } from './gtin.ts';

const withCheckDigit = (body: string) => body + gs1CheckDigit(body);

describe('checkGtin', () => {
  it('accepts EAN-13, UPC-A, EAN-8 and GTIN-14 trade items', () => {
    expect(checkGtin('8001001001005')).toEqual({ ok: true, gtin14: '08001001001005', canonical: '8001001001005' });
    expect(checkGtin('036000291452')).toEqual({ ok: true, gtin14: '00036000291452', canonical: '0036000291452' });
    expect(checkGtin('80010074')).toEqual({ ok: true, gtin14: '00000080010074', canonical: '80010074' });
    const gtin14 = withCheckDigit('1800100100100');
    expect(checkGtin(gtin14)).toEqual({ ok: true, gtin14, canonical: gtin14 });
  });

  it('treats one GTIN written with 12, 13 or 14 digits as one barcode', () => {
    const forms = ['036000291452', '0036000291452', '00036000291452'].map((text) => checkGtin(text));
    expect(new Set(forms.map((form) => (form.ok ? form.canonical : form.reason)))).toEqual(new Set(['0036000291452']));
  });

  it.each([
    '',
    '123',
    '1234567',
    '123456789',
    '12345678901',
    '123456789012345',
    '80010010010O5',
    ' 8001001001005',
    '8001001001005 ',
    '+8001001001',
    '８００１００１００１００５',
  ])('rejects %j as invalid_barcode', (text) => {
    expect(checkGtin(text)).toMatchObject({ ok: false, reason: 'invalid_barcode' });
  });

  it('rejects a wrong check digit as invalid_checksum', () => {
    expect(checkGtin('8001001001006')).toMatchObject({ ok: false, reason: 'invalid_checksum', detail: 'the check digit should be 5' });
  });

  it.each([
    ['977 (ISSN)', withCheckDigit('977123456789')],
    ['978 (ISBN)', withCheckDigit('978880000000')],
    ['979 (ISMN)', withCheckDigit('979000000000')],
    ['2 (in-store, variable weight)', withCheckDigit('200000000000')],
    ['29', withCheckDigit('290000000000')],
    ['98 (refund)', withCheckDigit('980000000000')],
    ['99 (coupon)', withCheckDigit('990000000000')],
    ['UPC-A number system 2', withCheckDigit('20000000000')],
    ['UPC-A number system 4', withCheckDigit('40000000000')],
    ['UPC-A number system 5 (coupon)', withCheckDigit('50000000000')],
    ['EAN-8 restricted prefix 2', withCheckDigit('2000000')],
    ['EAN-8 restricted prefix 0', withCheckDigit('0123456')],
    ['GTIN-14 variable measure', withCheckDigit('9800100100100')],
    ['GTIN-14 around an ISBN', withCheckDigit('1978880000000')],
  ])('rejects prefix %s as unsupported_barcode', (_, text) => {
    expect(checkGtin(text)).toMatchObject({ ok: false, reason: 'unsupported_barcode' });
  });

  it('agrees with an independent implementation on the check digit of random codes', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(8, 12, 13, 14),
        fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 14, maxLength: 14 }),
        (length, digits) => {
          const text = digits.slice(0, length).join('');
          const ours = checkGtin(text);
          const theirs = independentIsValid(text);
          // Ours adds the prefix classification on top of a valid check digit.
          expect(ours.ok || ours.reason === 'unsupported_barcode').toBe(theirs);
        },
      ),
      { numRuns: 5000 },
    );
  });
});

describe('canonicalGtin', () => {
  it('shortens padded forms to what a scanner prints', () => {
    expect(canonicalGtin('00000080010074')).toBe('80010074');
    expect(canonicalGtin('08001001001005')).toBe('8001001001005');
    expect(canonicalGtin('18001001001002')).toBe('18001001001002');
  });
});
