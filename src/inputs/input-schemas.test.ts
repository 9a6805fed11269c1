import { describe, expect, it } from 'vitest';
import { MAX_CARTON_UNITS } from '../dataset/barcode-rules.ts';
import { checkGtin } from '../gs1/gtin.ts';
import { parseTariffCode } from '../source/tariff-code.ts';
import { cleanLabel, MAX_LABEL_LENGTH, normaliseEmail, organisationSchema, parsePageNumber, searchTextSchema } from './input-schemas.ts';
import { parseWholeNumber } from '../util/whole-number.ts';

describe('cleanLabel', () => {
  it('keeps one line of printable text with single spaces', () => {
    const raw = ['cassa 1', 'cassa\u001b[2J\u0007 1', '\u202Eevil\u202C name\r\nnext', '  many   spaces\t'];
    expect(raw.map(cleanLabel)).toEqual(['cassa 1', 'cassa [2J 1', 'evil name next', 'many spaces']);
  });

  it('bounds the length, counting characters, not bytes', () => {
    expect([...cleanLabel('è'.repeat(500))]).toHaveLength(MAX_LABEL_LENGTH);
  });
});

describe('whole numbers', () => {
  it('takes decimal digits or a JSON integer within bounds, and nothing else', () => {
    expect(['1', '012', ' 7 ', 1000].map((v) => parseWholeNumber(v, 1, 1000))).toEqual([1, 12, 7, 1000]);
    for (const bad of ['1e3', '0x10', '-1', '+1', '12.0', '1 2', '', '٣', 1.5, 0, 1001, null, '99999999999999999999'])
      expect(parseWholeNumber(bad, 1, 1000), String(bad)).toBeNull();
  });

  it('gives the same verdicts for the page numbers and units built on it', () => {
    expect(parsePageNumber('3')).toBe(3);
    expect(parsePageNumber('0')).toBeNull();
    expect(parseWholeNumber('1e3', 1, MAX_CARTON_UNITS)).toBeNull();
    expect(parseWholeNumber(10, 1, MAX_CARTON_UNITS)).toBe(10);
  });
});

describe('the other inputs', () => {
  it('reads codes, barcodes, addresses, organisations and searches as every surface does', () => {
    expect(parseTariffCode('020663')).toBe(20663);
    expect(parseTariffCode('0x10')).toBeNull();
    expect(checkGtin('012345678905')).toMatchObject({ ok: true, canonical: '0012345678905' });
    expect(checkGtin('8001002006840').ok).toBe(false);
    expect(normaliseEmail(' Cassa@Example.IT ')).toBe('cassa@example.it');
    expect(normaliseEmail('not an address')).toBeNull();
    expect(organisationSchema.safeParse('A').success).toBe(false);
    expect(organisationSchema.safeParse('Bianchi\u0085 Srl').data).toBe('Bianchi Srl');
    expect(searchTextSchema.parse('x'.repeat(500))).toHaveLength(100);
  });
});
