import { describe, expect, it } from 'vitest';
import { markCovers, markKey, sweepPlan, type Mark } from './deferred-deletions.ts';

const DAY = 86_400_000;
const mark = (name: string, markedAt: string, extra: Partial<Mark> = {}): Mark => ({
  key: `deletions/${name}.json`,
  keys: [],
  prefix: `releases/${name}/`,
  reason: 'beyond --keep 1',
  by: 'tariff publish',
  marked: new Date(markedAt),
  ...extra,
});

describe('deferred deletion, the rules', () => {
  it('acts on a mark only once it is a retention old, and drops one whose keys a pointer names again, however young', () => {
    const now = new Date('2026-11-27T12:00:00Z');
    const marks = [
      mark('20261101.1', '2026-11-26T11:59:59Z'),
      mark('20261101.2', '2026-11-26T12:00:01Z'),
      mark('20261101.3', '2026-11-27T11:00:00Z'),
    ];
    const plan = sweepPlan(marks, now, DAY, (m) => m.prefix === 'releases/20261101.3/');
    expect(plan.due.map((m) => m.prefix)).toEqual(['releases/20261101.1/']);
    expect(plan.waiting.map((m) => m.prefix)).toEqual(['releases/20261101.2/']);
    expect(plan.cancelled.map((m) => m.prefix)).toEqual(['releases/20261101.3/']);
  });

  it('names one mark per thing marked, whatever the order of its keys, and says what it covers', () => {
    expect(markKey({ keys: ['b', 'a'], prefix: null })).toBe(markKey({ keys: ['a', 'b'], prefix: null }));
    expect(markKey({ keys: [], prefix: 'releases/20261101.1/' })).not.toBe(markKey({ keys: [], prefix: 'releases/20261101.2/' }));
    expect(markKey({ keys: [], prefix: 'releases/20261101.1/' })).toMatch(/^deletions\/[0-9a-f]{32}\.json$/);
    const release = mark('20261101.1', '2026-11-26T00:00:00Z');
    expect(markCovers(release, 'releases/20261101.1/manifest.json')).toBe(true);
    expect(markCovers(release, 'releases/20261101.10/manifest.json')).toBe(false);
    expect(markCovers({ keys: ['sources/a.pdf'], prefix: null }, 'sources/a.pdf')).toBe(true);
  });
});
