import { describe, expect, it } from 'vitest';
import { MAX_TARIFF_CODE, parseTariffCode } from './tariff-code.ts';

describe('parseTariffCode', () => {
  it('reads digits and whole numbers from 1 to nine digits', () => {
    expect(parseTariffCode('20727')).toBe(20727);
    expect(parseTariffCode(' 1001 ')).toBe(1001);
    expect(parseTariffCode(1001)).toBe(1001);
    expect(parseTariffCode(MAX_TARIFF_CODE)).toBe(MAX_TARIFF_CODE);
  });

  it('refuses what only looks like a number, and what no engine column holds', () => {
    for (const value of ['0', '-5', '1e3', '0x10', '12.0', '', '99999999999', 1e20, 2 ** 31, 0, -1, 1.5, Number.NaN, null, undefined, {}])
      expect(parseTariffCode(value)).toBeNull();
  });
});
