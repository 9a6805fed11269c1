import { describe, expect, it } from 'vitest';
import type { SourceList, SourceProduct } from '../source/parse-tariff-xml.ts';
import { CATEGORIES, type FeedCategory } from '../source/categories.ts';
import { selectTariff } from './select-tariff.ts';

const item = (admCode: number, pricePerPackCents = 600, name = `P${admCode}`): SourceProduct => ({
  admCode,
  name,
  pack: 'astuccio da 20 pezzi',
  pricePerKgCents: pricePerPackCents * 50,
  pricePerPackCents,
  where: `feed.xml (codice ${admCode})`,
});
const list = (feedCategory: FeedCategory, effectiveFrom: string, products: SourceProduct[], source = 'feed.xml'): SourceList => ({
  source,
  feedCategory,
  category: CATEGORIES[feedCategory],
  effectiveFrom,
  products,
  where: source,
});

describe('selectTariff', () => {
  const lists = [
    list('sigarette', '2026-06-01', [item(1, 500), item(2)]),
    list('sigarette', '2026-11-01', [item(1, 550), item(2)]),
    list('sigarette', '2026-12-01', [item(1, 600), item(2)]),
    list('sigari', '2026-03-01', [item(10)]),
  ];

  it('takes, per category, the latest list in force on the day', () => {
    const tariff = selectTariff(lists, '2026-11-22');
    expect(tariff.tariffDate).toBe('2026-11-01');
    expect(tariff.products.map((p) => [p.admCode, p.pricePerPackCents, p.effectiveFrom])).toEqual([
      [1, 550, '2026-11-01'],
      [2, 600, '2026-11-01'],
      [10, 600, '2026-03-01'],
    ]);
  });

  it('lets a future list wait for its day, and reports it', () => {
    expect(selectTariff(lists, '2026-11-30').pending).toEqual([{ category: 'sigarette', effectiveFrom: '2026-12-01', source: 'feed.xml' }]);
    expect(selectTariff(lists, '2026-12-01')).toMatchObject({ tariffDate: '2026-12-01', pending: [] });
    expect(selectTariff(lists, '2026-12-01').products[0]!.pricePerPackCents).toBe(600);
  });

  it('merges lists of the same category and day and tolerates identical repeats', () => {
    const tariff = selectTariff(
      [list('sigarette', '2026-11-01', [item(1)], 'a.xml'), list('sigarette', '2026-11-01', [item(1), item(3)], 'b.xml')],
      '2026-11-01',
    );
    expect(tariff.products.map((p) => p.admCode)).toEqual([1, 3]);
  });

  it('refuses a tariff code listed twice with different data', () => {
    expect(() => selectTariff([list('sigarette', '2026-11-01', [item(1, 500), item(1, 510)])], '2026-11-01')).toThrow(
      /codice 1\): tariff code 1 is also listed at feed\.xml \(codice 1\) with different data/,
    );
    expect(() => selectTariff([list('sigarette', '2026-11-01', [item(1)]), list('sigari', '2026-11-01', [item(1)])], '2026-11-01')).toThrow(
      /different data/,
    );
  });

  it('refuses an empty tariff', () => {
    expect(() => selectTariff([], '2026-11-01')).toThrow(expect.objectContaining({ code: 'tariff_empty' }));
    expect(() => selectTariff([list('sigarette', '2026-11-01', [])], '2026-11-01')).toThrow(
      expect.objectContaining({ code: 'tariff_empty' }),
    );
  });

  it('refuses a day before any tariff', () => {
    expect(() => selectTariff(lists, '2026-01-01')).toThrow(
      expect.objectContaining({ code: 'no_tariff_in_force', message: expect.stringContaining('2026-03-01') }),
    );
  });
});
