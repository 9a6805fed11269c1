import { describe, expect, it } from 'vitest';
import { parseEuroCents } from './parse-euro.ts';

describe('parseEuroCents', () => {
  it.each([
    ['5,50', 550],
    ['5,5', 550],
    ['5', 500],
    ['0,01', 1],
    ['1.234,00', 123400],
    ['12.500,00', 1250000],
    ['1.234.567,89', 123456789],
    ['  6,20 ', 620],
    ['€ 6,20', 620],
    ['6,20 €', 620],
  ])('reads %j as %i cents', (text, cents) => {
    expect(parseEuroCents(text)).toBe(cents);
  });

  it.each(['5.50', '5,505', '1,234.00', '12.34,00', 'abc', '', '-5,00', '5,', ',50', '1 234,00'])('refuses %j', (text) => {
    expect(parseEuroCents(text)).toBeNull();
  });
});
