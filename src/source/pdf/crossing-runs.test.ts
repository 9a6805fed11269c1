import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { crossingCount } from './crossing-runs.ts';
import type { TextRun } from './text-runs.ts';

const run = (x: number, width: number): TextRun => ({ text: 'x', x, y: 0, width, height: 8 });

describe('crossingCount', () => {
  it('counts a run only strictly inside it: not where it starts, not where it ends', () => {
    const count = crossingCount([run(10, 5), run(12, 0)]);
    expect([9, 10, 11, 12, 15, 16].map(count)).toEqual([0, 0, 1, 1, 0, 0]);
  });

  it('agrees with counting the runs one by one', () => {
    const runs = fc.array(
      fc.record({ x: fc.integer({ min: 0, max: 50 }), width: fc.integer({ min: -2, max: 20 }) }).map((r) => run(r.x, r.width)),
      { maxLength: 40 },
    );
    fc.assert(
      fc.property(runs, fc.integer({ min: -5, max: 80 }), (given, x) => {
        const oneByOne = given.filter((r) => r.x < x && r.x + r.width > x).length;
        expect(crossingCount(given)(x)).toBe(oneByOne);
      }),
    );
  });
});
