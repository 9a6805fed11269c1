import { describe, expect, it } from 'vitest';
import { checkShrink } from './check-shrink.ts';

describe('checkShrink', () => {
  it('lets a build drop up to the share allowed', () => {
    expect(() => checkShrink(100, 80, 0.2, false)).not.toThrow();
    expect(() => checkShrink(100, 150, 0.2, false)).not.toThrow();
    expect(() => checkShrink(null, 1, 0.2, false)).not.toThrow();
  });

  it('refuses a bigger drop unless allowed', () => {
    expect(() => checkShrink(100, 79, 0.2, false)).toThrow(expect.objectContaining({ code: 'shrink_refused', message: expect.stringContaining('drops 21 of the 100 products') }));
    expect(() => checkShrink(100, 79, 0.2, true)).not.toThrow();
    expect(() => checkShrink(100, 79, 0.5, false)).not.toThrow();
  });
});
