import { describe, expect, it } from 'vitest';
import { categoryCounts, checkCategoryShrink, checkShrink } from './check-shrink.ts';

describe('the shrink guards', () => {
  it('refuses a total drop beyond the percentage, unless allowed', () => {
    expect(() => checkShrink(100, 79, { maxPercent: 20, allowed: false })).toThrow(/drops 21 of the 100 products/);
    expect(() => checkShrink(100, 79, { maxPercent: 20, allowed: true })).not.toThrow();
    expect(() => checkShrink(100, 80, { maxPercent: 20, allowed: false })).not.toThrow();
  });

  it('refuses a category that vanished while the total stays within the share', () => {
    const previous = { cigars: 2821, cigarettes: 12 };
    expect(() => checkShrink(2833, 2821, { maxPercent: 20, allowed: false })).not.toThrow();
    expect(() => checkCategoryShrink(previous, { cigars: 2821 }, { maxPercent: 20, allowed: false })).toThrow(
      /drops 12 of the 12 cigarettes products/,
    );
    expect(() => checkCategoryShrink(previous, { cigars: 2821 }, { maxPercent: 20, allowed: true })).not.toThrow();
    expect(() => checkCategoryShrink(previous, { cigars: 2300, cigarettes: 12 }, { maxPercent: 20, allowed: false })).not.toThrow();
    expect(() => checkCategoryShrink(null, {}, { maxPercent: 20, allowed: false })).not.toThrow();
  });

  it('counts products per category', () => {
    expect(categoryCounts([{ category: 'cigars' }, { category: 'cigars' }, { category: 'snuff' }])).toEqual({ cigars: 2, snuff: 1 });
  });
});
