import { describe, expect, it } from 'vitest';
import { parsePack } from './parse-pack.ts';

describe('parsePack', () => {
  it.each([
    ['astuccio da 20 pezzi', { quantity: 20, unit: 'pieces' }],
    ['cartoccio da 10 pezzi', { quantity: 10, unit: 'pieces' }],
    ['tubo da 1 pezzo', { quantity: 1, unit: 'pieces' }],
    ['busta da 30 grammi', { quantity: 30, unit: 'grams' }],
    ['barattolo da 12,5 grammi', { quantity: 12.5, unit: 'grams' }],
    ['Busta Da 40 GR.', { quantity: 40, unit: 'grams' }],
    ['flacone da 10 ml', { quantity: 10, unit: 'millilitres' }],
    // Written so in the authority's cigar list of 22/07/2026.
    ['da5 pezzi', { quantity: 5, unit: 'pieces' }],
    ['da 20pezzi', { quantity: 20, unit: 'pieces' }],
    ['de 25 pezzi', { quantity: 25, unit: 'pieces' }],
    ['a 20 pezzi', { quantity: 20, unit: 'pieces' }],
    ['da 25 pezzo', { quantity: 25, unit: 'pieces' }],
    ['da 6 sigari', { quantity: 6, unit: 'pieces' }],
  ])('reads %j', (text, size) => {
    expect(parsePack(text)).toEqual(size);
  });

  it.each(['confezione speciale', 'astuccio da venti pezzi', 'da 20 gradi', 'lada 20 pezzi'])('says nothing about %j', (text) => {
    expect(parsePack(text)).toBeNull();
  });
});
