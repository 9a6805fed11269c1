import { describe, expect, it } from 'vitest';
import { oneLine, printable } from './clean-text.ts';

describe('oneLine', () => {
  it('turns controls, separators and bidi overrides into single spaces', () => {
    expect(oneLine('MARLBORO\u0085GOLD')).toBe('MARLBORO GOLD');
    expect(oneLine('A\u001b[2JB\u2028C\u2029D')).toBe('A [2JB C D');
    expect(oneLine('\u202EGOLD 5,70\u202C')).toBe('GOLD 5,70');
    expect(oneLine('X\uFFFEY\uFFFFZ\uFEFF')).toBe('X Y Z');
    expect(oneLine('lone \uD800 surrogate')).toBe('lone surrogate');
  });

  it('leaves ordinary names, accents and emoji as they are', () => {
    for (const name of ['CAPTAIN BLACK DARK CREMA', 'TOSCANO ANTICO (5 pezzi)', 'Caffè Crème €/kg', 'MS 🙂 BLU'])
      expect(oneLine(name)).toBe(name);
  });
});

describe('printable', () => {
  it('keeps line breaks and tabs, and drops the rest', () => {
    expect(printable('riga 1\nriga\t2\u001b[31m\u202E')).toBe('riga 1\nriga\t2[31m');
  });
});
