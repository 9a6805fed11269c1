import { describe, expect, it } from 'vitest';
import type { Change, Product } from '../dataset/model.ts';
import { emptyHistory, listObservations, recordObservations, recordRelease, type PriceHistory } from './price-history.ts';

const product = (admCode: number, pricePerPackCents: number, name = `P${admCode}`, effectiveFrom = '2026-07-22'): Product => ({
  admCode,
  name,
  category: 'cigars',
  pack: 'da 5 pezzi',
  packQuantity: 5,
  packUnit: 'pieces',
  pricePerKgCents: pricePerPackCents * 40,
  pricePerPackCents,
  effectiveFrom,
  referencePriceCents: pricePerPackCents * 40,
  referenceUnit: 'conventional_kg',
});

const fromList = (history: PriceHistory, date: string, source: string, ...products: Product[]) =>
  recordObservations(history, listObservations(products, date, source));
const prices = (history: PriceHistory, admCode: number) =>
  history.products.find((p) => p.admCode === admCode)?.steps.map((s) => [s.from, s.pricePerPackCents, s.source]);
const release = (version: string, tariffDate: string, products: Product[], changes: Partial<Change>[] = []) => ({
  version,
  tariffDate,
  products,
  changes: changes as Change[],
});

describe('price history', () => {
  it('gives the same steps whatever order the archived lists are read in', () => {
    const lists: [string, string, Product][] = [
      ['2023-05-17', 'a.pdf', product(684, 450)],
      ['2023-10-31', 'b.pdf', product(684, 450)],
      ['2024-06-01', 'c.pdf', product(684, 470)],
      ['2026-07-22', 'd.pdf', product(684, 480)],
    ];
    const inOrder = lists.reduce((h, [date, source, p]) => fromList(h, date, source, p), emptyHistory());
    const reversed = [...lists].reverse().reduce((h, [date, source, p]) => fromList(h, date, source, p), emptyHistory());
    const expected = [
      ['2023-05-17', 450, 'a.pdf'],
      ['2024-06-01', 470, 'c.pdf'],
      ['2026-07-22', 480, 'd.pdf'],
    ];
    expect(prices(inOrder, 684)).toEqual(expected);
    expect(prices(reversed, 684)).toEqual(expected);
    expect(inOrder.products[0]!.steps[0]!.lastSeen).toBe('2023-10-31');
  });

  it('keeps a price that went away and came back as three steps, each named by the list that showed it', () => {
    let history = fromList(emptyHistory(), '2023-01-01', 'a.pdf', product(1, 100));
    history = fromList(history, '2025-01-01', 'c.pdf', product(1, 100));
    history = fromList(history, '2024-01-01', 'b.pdf', product(1, 120));
    expect(prices(history, 1)).toEqual([
      ['2023-01-01', 100, 'a.pdf'],
      ['2024-01-01', 120, 'b.pdf'],
      ['2025-01-01', 100, 'c.pdf'],
    ]);
  });

  it('links each step to the release that first carried it, and follows the newest name', () => {
    let history = fromList(emptyHistory(), '2023-10-31', 'old.pdf', product(684, 450, 'OLD NAME'));
    history = recordRelease(history, release('20260722.1', '2026-07-22', [product(684, 480, 'AMMEZZATI')]));
    history = recordRelease(history, release('20260801.1', '2026-08-01', [product(684, 480, 'AMMEZZATI')]));
    history = recordRelease(history, release('20261201.1', '2026-12-01', [product(684, 500, 'AMMEZZATI', '2026-12-01')]));
    const entry = history.products[0]!;
    expect(entry.name).toBe('AMMEZZATI');
    expect(entry.steps.map((s) => [s.from, s.pricePerPackCents, s.release])).toEqual([
      ['2023-10-31', 450, null],
      ['2026-07-22', 480, '20260722.1'],
      ['2026-12-01', 500, '20261201.1'],
    ]);
    expect(entry.steps[1]!.lastSeen).toBe('2026-08-01');
    expect(history.release).toBe('20261201.1');
  });

  it('grows with the prices, not with the lists: a release restating a price from a later list extends the last sighting', () => {
    let history = emptyHistory();
    // A list a day, each dated its day; the price moves once.
    for (let day = 1; day <= 28; day += 1) {
      const date = `2026-02-${String(day).padStart(2, '0')}`;
      history = recordRelease(
        history,
        release(`202602${String(day).padStart(2, '0')}.1`, date, [product(7, day < 20 ? 300 : 310, 'P7', date)]),
      );
    }
    const entry = history.products[0]!;
    expect(entry.sightings.map((s) => [s.from, s.seen, s.pricePerPackCents, s.release])).toEqual([
      ['2026-02-01', '2026-02-19', 300, '20260201.1'],
      ['2026-02-20', '2026-02-28', 310, '20260220.1'],
    ]);
    expect(entry.steps.map((s) => [s.from, s.lastSeen, s.pricePerPackCents])).toEqual([
      ['2026-02-01', '2026-02-19', 300],
      ['2026-02-20', '2026-02-28', 310],
    ]);
    // Another price said in between (an archived list read meanwhile): the restating release keeps a sighting of its own.
    let between = fromList(emptyHistory(), '2026-03-05', 'marzo.pdf', product(8, 120));
    between = recordRelease(between, release('20260301.1', '2026-03-01', [product(8, 100, 'P8', '2026-03-01')]));
    between = recordRelease(between, release('20260312.1', '2026-03-12', [product(8, 100, 'P8', '2026-03-10')]));
    expect(between.products[0]!.steps.map((s) => [s.from, s.pricePerPackCents])).toEqual([
      ['2026-03-01', 100],
      ['2026-03-05', 120],
      ['2026-03-10', 100],
    ]);
  });

  it('marks a product a release no longer lists as withdrawn, dated when the release says it was removed', () => {
    let history = fromList(emptyHistory(), '2023-10-31', 'old.pdf', product(1, 100), product(2, 200));
    history = recordRelease(history, release('20260722.1', '2026-07-22', [product(2, 200), product(3, 300)]));
    history = recordRelease(history, release('20260801.1', '2026-08-01', [product(2, 200)], [{ kind: 'product_removed', admCode: 3 }]));
    const withdrawn = Object.fromEntries(history.products.map((p) => [p.admCode, p.withdrawn]));
    expect(withdrawn).toEqual({
      1: { from: null, release: '20260722.1' },
      2: null,
      3: { from: '2026-08-01', release: '20260801.1' },
    });
    history = recordRelease(history, release('20260901.1', '2026-09-01', [product(2, 200), product(3, 300, 'P3', '2026-09-01')]));
    expect(history.products.find((p) => p.admCode === 3)!.withdrawn).toBeNull();
  });
});
