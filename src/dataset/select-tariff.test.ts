import { describe, expect, it } from 'vitest';
import type { SourceList, SourceProduct } from '../source/source-types.ts';
import { CATEGORIES, type FeedCategory } from '../source/categories.ts';
import { selectTariff } from './select-tariff.ts';

const item = (admCode: number, pricePerPackCents = 600, name = `P${admCode}`): SourceProduct => ({
  admCode,
  name,
  pack: 'astuccio da 20 pezzi',
  referencePriceCents: pricePerPackCents * 50,
  pricePerPackCents,
  where: `feed.xml (codice ${admCode})`,
});
const list = (feedCategory: FeedCategory, effectiveFrom: string, products: SourceProduct[], source = 'feed.xml'): SourceList => {
  const category = CATEGORIES[feedCategory];
  return { source, where: source, feedCategory, category, effectiveFrom, referenceUnit: 'conventional_kg', products };
};

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

  it('keeps the first of two rows one list prints under one code, and reports the other', () => {
    const tariff = selectTariff(
      [list('sigari', '2023-10-31', [item(1, 500, 'VEGAFINA CUM LAUDE'), item(2), item(1, 510, 'VEGAFINA ESTELI')])],
      '2023-11-01',
    );
    expect(tariff.products.map((p) => [p.admCode, p.name])).toEqual([
      [1, 'VEGAFINA CUM LAUDE'],
      [2, 'P2'],
    ]);
    expect(tariff.duplicates).toEqual([
      {
        admCode: 1,
        source: 'feed.xml',
        kept: { name: 'VEGAFINA CUM LAUDE', pack: 'astuccio da 20 pezzi', where: 'feed.xml (codice 1)' },
        left: { name: 'VEGAFINA ESTELI', pack: 'astuccio da 20 pezzi', where: 'feed.xml (codice 1)' },
        reason: 'printed first',
      },
    ]);
  });

  it("keeps, of two rows under one code, the one that continues the previous release's product", () => {
    const previous = selectTariff([list('sigari', '2023-10-01', [item(1, 510, 'VEGAFINA ESTELI')])], '2023-10-01').products;
    const tariff = selectTariff(
      [list('sigari', '2023-10-31', [item(1, 500, 'VEGAFINA CUM LAUDE'), item(1, 510, 'VEGAFINA ESTELI')])],
      '2023-11-01',
      previous,
    );
    expect(tariff.products.map((p) => p.name)).toEqual(['VEGAFINA ESTELI']);
    expect(tariff.duplicates.map((d) => [d.kept.name, d.left.name, d.reason])).toEqual([
      ['VEGAFINA ESTELI', 'VEGAFINA CUM LAUDE', 'continues the previous release'],
    ]);
  });

  it('refuses a tariff code two lists give different data', () => {
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
