import { describe, expect, it } from 'vitest';
import type { NoticeChange, SourceNotice } from '../source/source-types.ts';
import { applyNotices } from './apply-notices.ts';
import type { Product } from './model.ts';

const product = (
  admCode: number,
  name: string,
  pack: string,
  pricePerKgCents: number,
  pricePerPackCents: number,
  category: Product['category'] = 'cigars',
): Product => ({
  admCode,
  name,
  category,
  pack,
  packQuantity: null,
  packUnit: null,
  pricePerKgCents,
  pricePerPackCents,
  effectiveFrom: '2026-07-22',
  referencePriceCents: pricePerKgCents,
  referenceUnit: 'conventional_kg',
});
const PRODUCTS = [
  product(21825, 'TOSCANO T', 'da 6 sigari', 150000, 4500),
  product(21847, 'ZINO NICARAGUA ROBUSTO 25', 'da 25 pezzi', 116000, 14500),
  product(19982, 'ZINO NICARAGUA ROBUSTO 25', 'da 25 pezzi', 178000, 22250),
  product(1001, 'AURORA ROSSA', 'astuccio da 20 pezzi', 30000, 600, 'cigarettes'),
];
const LIST_DATES = new Map<Product['category'], string>([
  ['cigars', '2026-07-22'],
  ['cigarettes', '2026-07-22'],
]);
const change = (
  admCode: number | null,
  name: string,
  pack: string,
  from: number,
  to: number,
  perPack: number,
  category: 'cigars' | 'cigarettes' = 'cigars',
): NoticeChange => ({
  feedCategory: category === 'cigars' ? 'sigari' : 'sigarette',
  category,
  admCode,
  name,
  pack,
  referenceUnit: 'conventional_kg',
  fromReferenceCents: from,
  referencePriceCents: to,
  pricePerPackCents: perPack,
  where: `n.pdf page 1 row ${name}`,
});
const notice = (effectiveFrom: string | null, changes: NoticeChange[], source = 'n.pdf'): SourceNotice => ({
  source,
  effectiveFrom,
  changes,
  where: source,
});

/** The test products and list dates, with these notices, on this day. */
const applyOn = (day: string, ...notices: SourceNotice[]) => applyNotices(PRODUCTS, LIST_DATES, notices, day);

describe('applyNotices', () => {
  it('applies new prices from the notice date on, by code, and dates the product from the notice', () => {
    const { products, reports, latest } = applyOn(
      '2026-08-01',
      notice('2026-08-01', [change(1001, 'AURORA ROSSA', 'astuccio da 20 pezzi', 30000, 31000, 620, 'cigarettes')]),
    );
    expect(products.find((p) => p.admCode === 1001)).toMatchObject({
      pricePerKgCents: 31000,
      pricePerPackCents: 620,
      effectiveFrom: '2026-08-01',
    });
    expect(reports).toEqual([expect.objectContaining({ status: 'applied', applied: 1, problems: [] })]);
    expect(latest).toBe('2026-08-01');
    expect(PRODUCTS.find((p) => p.admCode === 1001)!.pricePerKgCents).toBe(30000);
  });

  it('waits for the notice date: the day before, nothing changes', () => {
    const { products, reports, latest } = applyOn(
      '2026-07-31',
      notice('2026-08-01', [change(1001, 'AURORA ROSSA', 'astuccio da 20 pezzi', 30000, 31000, 620, 'cigarettes')]),
    );
    expect(products).toEqual(PRODUCTS);
    expect(reports[0]).toMatchObject({ status: 'pending', applied: 0 });
    expect(latest).toBeNull();
  });

  it('announces the prices of notices whose day has not come, by day then code, from the notice', () => {
    const { products, announced } = applyOn(
      '2026-07-31',
      notice('2026-09-01', [change(null, 'TOSCANO T', 'da 6 sigari', 150000, 170000, 5100)], 'later.pdf'),
      notice('2026-08-01', [
        change(21825, 'TOSCANO T', 'da 6 sigari', 150000, 160000, 4800),
        change(1001, 'AURORA ROSSA', 'astuccio da 20 pezzi', 30000, 31000, 620, 'cigarettes'),
        change(4242, 'NOT LISTED', 'da 5 pezzi', 1, 2, 3),
      ]),
    );
    expect(products).toEqual(PRODUCTS);
    expect(announced).toEqual([
      {
        admCode: 1001,
        effectiveFrom: '2026-08-01',
        pricePerPackCents: 620,
        pricePerKgCents: 31000,
        referencePriceCents: 31000,
        referenceUnit: 'conventional_kg',
        source: 'n.pdf',
      },
      {
        admCode: 21825,
        effectiveFrom: '2026-08-01',
        pricePerPackCents: 4800,
        pricePerKgCents: 160000,
        referencePriceCents: 160000,
        referenceUnit: 'conventional_kg',
        source: 'n.pdf',
      },
      {
        admCode: 21825,
        effectiveFrom: '2026-09-01',
        pricePerPackCents: 5100,
        pricePerKgCents: 170000,
        referencePriceCents: 170000,
        referenceUnit: 'conventional_kg',
        source: 'later.pdf',
      },
    ]);
  });

  it('announces nothing once the day has come: the price is then in force', () => {
    const { announced, products } = applyOn(
      '2026-08-01',
      notice('2026-08-01', [change(21825, 'TOSCANO T', 'da 6 sigari', 150000, 160000, 4800)]),
    );
    expect(announced).toEqual([]);
    expect(products.find((p) => p.admCode === 21825)?.pricePerPackCents).toBe(4800);
  });

  it('matches a row without a code by name and pack, case and spacing aside', () => {
    const { products } = applyOn('2026-08-01', notice('2026-08-01', [change(null, 'Toscano  T', 'da 6 sigari', 150000, 160000, 4800)]));
    expect(products.find((p) => p.admCode === 21825)).toMatchObject({ pricePerKgCents: 160000, pricePerPackCents: 4800 });
  });

  it('reports, and does not apply, a row without a code that matches several products or none', () => {
    const { products, reports } = applyOn(
      '2026-08-01',
      notice('2026-08-01', [
        change(null, 'ZINO NICARAGUA ROBUSTO 25', 'da 25 pezzi', 116000, 120000, 15000),
        change(null, 'TOSCANO T', 'da 5 sigari', 150000, 160000, 4000),
      ]),
    );
    expect(products).toEqual(PRODUCTS);
    expect(reports[0]!.problems).toEqual([
      expect.stringMatching(/matches 2 products \(codes 21847, 19982\)/),
      expect.stringMatching(/matches no product/),
    ]);
  });

  it('reports a code the list does not hold, or holds in another category', () => {
    const { reports } = applyOn(
      '2026-08-01',
      notice('2026-08-01', [
        change(99999, 'X', 'da 1 pezzo', 1, 2, 3),
        change(1001, 'AURORA ROSSA', 'astuccio da 20 pezzi', 30000, 31000, 620),
      ]),
    );
    expect(reports[0]!.problems).toEqual([
      expect.stringMatching(/tariff code 99999 is not in the cigars list/),
      expect.stringMatching(/tariff code 1001 is not in the cigars list/),
    ]);
  });

  it('leaves a notice no newer than the list in force alone: the list already holds it', () => {
    const { products, reports } = applyOn(
      '2026-08-01',
      notice('2026-07-01', [change(21825, 'TOSCANO T', 'da 6 sigari', 140000, 150000, 4500)]),
    );
    expect(products).toEqual(PRODUCTS);
    expect(reports[0]!.status).toBe('superseded');
  });

  it('applies notices oldest first, and notes an old price that differs', () => {
    const { products, reports } = applyOn(
      '2026-09-30',
      notice('2026-09-01', [change(21825, 'TOSCANO T', 'da 6 sigari', 160000, 170000, 5100)], 'b.pdf'),
      notice('2026-08-01', [change(21825, 'TOSCANO T', 'da 6 sigari', 155000, 160000, 4800)], 'a.pdf'),
    );
    expect(products.find((p) => p.admCode === 21825)).toMatchObject({
      pricePerKgCents: 170000,
      pricePerPackCents: 5100,
      effectiveFrom: '2026-09-01',
    });
    expect(reports.map((r) => r.source)).toEqual(['a.pdf', 'b.pdf']);
    expect(reports[0]!.problems).toEqual([expect.stringMatching(/old reference price 1550,00 differs from 1500,00/)]);
  });

  it('never applies a notice that states no date: it is reported as undated', () => {
    const { products, reports } = applyOn('2026-12-31', notice(null, [change(21825, 'TOSCANO T', 'da 6 sigari', 150000, 160000, 4800)]));
    expect(products).toEqual(PRODUCTS);
    expect(reports[0]).toMatchObject({ status: 'undated', applied: 0 });
  });

  it('sets the reference price and its unit, and a price per kg only for a unit per kilogram', () => {
    const perThousand: NoticeChange = {
      ...change(1001, 'AURORA ROSSA', 'astuccio da 20 pezzi', 30000, 24000, 480, 'cigarettes'),
      referenceUnit: '1000_pieces',
    };
    const { products, reports } = applyOn('2026-08-01', notice('2026-08-01', [perThousand]));
    expect(products.find((p) => p.admCode === 1001)).toMatchObject({
      pricePerKgCents: null,
      referencePriceCents: 24000,
      referenceUnit: '1000_pieces',
    });
    expect(reports[0]!.problems).toEqual([expect.stringMatching(/per 1000_pieces, the list's per conventional_kg; applied all the same/)]);
  });
});
