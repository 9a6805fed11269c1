import { describe, expect, it } from 'vitest';
import { keptEarlier } from './fetch-all.ts';
import { retainDocuments, type KeptDocument } from './retain-documents.ts';

const doc = (sha256: string, effectiveFrom: string, categories?: string[]): KeptDocument => ({
  sha256,
  url: `https://adm.example/${sha256}`,
  effectiveFrom,
  fetchedAt: '2026-11-01T00:00:00Z',
  ...(categories ? { categories } : {}),
});
const categoryOf = (feed: string) => ({ sigari: 'cigars', sigarette: 'cigarettes' })[feed] ?? feed;

describe('retainDocuments', () => {
  it('keeps the list in force while a newer one waits for its day, then only the newer one', () => {
    const state = { lists: { sigari: [doc('old', '2026-06-01'), doc('current', '2026-07-22'), doc('future', '2026-12-01')] }, notices: [] };
    expect(retainDocuments(state, '2026-11-22', categoryOf).lists.sigari!.map((d) => d.sha256)).toEqual(['current', 'future']);
    expect(retainDocuments(state, '2026-12-01', categoryOf).lists.sigari!.map((d) => d.sha256)).toEqual(['future']);
  });

  it('keeps a future list alone when nothing is in force yet (the first run)', () => {
    expect(
      retainDocuments({ lists: { sigari: [doc('future', '2026-12-01')] }, notices: [] }, '2026-11-22', categoryOf).lists.sigari!.map(
        (d) => d.sha256,
      ),
    ).toEqual(['future']);
  });

  it('keeps the notices newer than the list in force of a category they touch', () => {
    const state = {
      lists: { sigari: [doc('list', '2026-07-22')], sigarette: [doc('list2', '2026-09-01')] },
      notices: [doc('old', '2026-07-01', ['cigars']), doc('next', '2026-08-01', ['cigars']), doc('stale', '2026-08-15', ['cigarettes'])],
    };
    expect(retainDocuments(state, '2026-11-22', categoryOf).notices.map((d) => d.sha256)).toEqual(['next']);
  });
});

describe('keptEarlier (single URLs)', () => {
  const inForce = { sha256: 'a', effectiveDates: ['2026-11-01'] };
  it('keeps the snapshot in force while the latest download is dated in the future', () => {
    expect(keptEarlier([inForce], ['2026-12-01'], '2026-11-22')).toEqual([inForce]);
  });
  it('drops it once the latest is in force', () => {
    expect(keptEarlier([inForce], ['2026-11-20'], '2026-11-22')).toEqual([]);
  });
  it('keeps only the newest of the earlier ones in force, and the future ones', () => {
    const older = { sha256: 'o', effectiveDates: ['2026-10-01'] };
    const waiting = { sha256: 'w', effectiveDates: ['2026-12-15'] };
    expect(keptEarlier([inForce, older, waiting], ['2026-12-01'], '2026-11-22')).toEqual([inForce, waiting]);
  });
});
