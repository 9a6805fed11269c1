import { describe, expect, it } from 'vitest';
import { isPerKilogram, referenceUnitOf } from './reference-unit.ts';

describe('referenceUnitOf', () => {
  it.each([
    ['€/kg conv.le', 'conventional_kg'],
    ['Da €/Kg conv.le', 'conventional_kg'],
    ['€/kg', 'kg'],
    ['€/1.000 pz.', '1000_pieces'],
    ['€/1000 pezzi', '1000_pieces'],
    ['€/10 ml', '10_ml'],
    ['€/l', 'l'],
    ['€ / litro', 'l'],
  ])('reads %j as %s', (header, unit) => {
    expect(referenceUnitOf(header)).toBe(unit);
  });

  it.each(['€/conf.ne', '€/Conf.ne', 'Pari a €/conf.ne', '€/conf.ne*', 'Conf.ne', 'Codice'])('finds no reference unit in %j', (header) => {
    expect(referenceUnitOf(header)).toBeNull();
  });

  it('counts only kilograms as prices per kilogram', () => {
    expect(['conventional_kg', 'kg', '1000_pieces', 'g', null].map(isPerKilogram)).toEqual([true, true, false, false, false]);
  });
});
