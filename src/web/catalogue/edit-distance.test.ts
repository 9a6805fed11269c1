import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { editDistance } from './edit-distance.ts';

describe('the edit distance', () => {
  it('counts insertions, deletions, substitutions, and a swap of neighbours as one', () => {
    expect(editDistance('toscano', 'toscano')).toBe(0);
    expect(editDistance('tosacno', 'toscano')).toBe(1);
    expect(editDistance('toscni', 'toscano')).toBe(2);
    expect(editDistance('', 'abc')).toBe(3);
    expect(editDistance('kitten', 'sitting')).toBe(3);
  });

  it('stops counting past the bound it is given', () => {
    expect(editDistance('aaaaaa', 'bbbbbb', 2)).toBe(3);
    expect(editDistance('a', 'abcdef', 1)).toBe(2);
  });

  it('is symmetric, zero only for equal words, and within the bound agrees with the unbounded count', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 8 }), fc.string({ maxLength: 8 }), fc.nat(4), (a, b, max) => {
        const d = editDistance(a, b);
        expect(editDistance(b, a)).toBe(d);
        expect(d === 0).toBe(a === b);
        expect(editDistance(a, b, max)).toBe(Math.min(d, max + 1));
      }),
    );
  });
});
