import { describe, expect, it } from 'vitest';
import { parsePack } from './parse-pack.ts';

describe('parsePack', () => {
  // Pack texts and the quantity they read as, by unit; the last pieces are written so in the
  // authority's cigar list of 22/07/2026.
  const pieces = { 'astuccio da 20 pezzi': 20, 'cartoccio da 10 pezzi': 10, 'tubo da 1 pezzo': 1, 'da 6 sigari': 6 };
  const realPieces = { 'da5 pezzi': 5, 'da 20pezzi': 20, 'de 25 pezzi': 25, 'a 20 pezzi': 20, 'da 25 pezzo': 25 };
  const grams = { 'busta da 30 grammi': 30, 'barattolo da 12,5 grammi': 12.5, 'Busta Da 40 GR.': 40 };
  const cases = [
    ...Object.entries({ ...pieces, ...realPieces }).map(([text, quantity]) => [text, { quantity, unit: 'pieces' }] as const),
    ...Object.entries(grams).map(([text, quantity]) => [text, { quantity, unit: 'grams' }] as const),
    ['flacone da 10 ml', { quantity: 10, unit: 'millilitres' }] as const,
  ];
  it.each(cases)('reads %j', (text, size) => {
    expect(parsePack(text)).toEqual(size);
  });

  it.each(['confezione speciale', 'astuccio da venti pezzi', 'da 20 gradi', 'lada 20 pezzi'])('says nothing about %j', (text) => {
    expect(parsePack(text)).toBeNull();
  });
});
