import type { DatasetDiff } from '../dataset/diff-datasets.ts';
import { formatEuroCents } from '../util/format-euro.ts';

/** One section of a diff as every rendering shows it: a title, its columns, its rows (all of them). */
export interface DiffSection {
  /** What its rows are: products, or barcodes (shown after the moved dates). */
  about: 'products' | 'barcodes';
  title: string;
  headers: string[];
  rows: string[][];
}

/** A diff as a reader takes it in: the line that says it all, the releases, the sections, the moved dates. */
export interface DiffReport {
  /** "12 new products, 1 price change (1 up), 0 removed, 3 barcodes added; tariff of 2026-12-01". */
  headline: string;
  /** "20261101.1 (tariff 2026-11-01) → 20261201.1 (tariff 2026-12-01)". */
  releases: string;
  identical: boolean;
  sections: DiffSection[];
  /** Products whose effective date moved, per (old, new) date pair: one line each, never one per product. */
  redatings: { from: string; to: string; count: number }[];
}

/** Sections longer than this are folded (`<details>`) in Markdown and HTML: a reviewer reads the headline and short ones first. */
export const FOLD_AFTER = 10;

/** "1 product", "3 products". */
export const plural = (count: number, one: string, many = `${one}s`) => `${count} ${count === 1 ? one : many}`;

/** One line of moved effective dates: "2026-07-22 → 2026-12-01: 2821 products". */
export const redatingLine = (d: { from: string; to: string; count: number }) => `${d.from} → ${d.to}: ${plural(d.count, 'product')}`;

/**
 * The sections of a diff, the same for a terminal, a merge request and a page: added, removed,
 * renamed, price changes (per pack and per reference unit), other changes, barcodes; a new list
 * date, which re-dates every product, summarised per date pair.
 */
export function diffReport(diff: DatasetDiff): DiffReport {
  const { products, barcodes } = diff;
  const releases = `${diff.old.version} (tariff ${diff.old.tariffDate}) → ${diff.new.version} (tariff ${diff.new.tariffDate})`;
  const up = products.priceChanged.filter((c) => c.newPricePerPackCents > c.oldPricePerPackCents).length;
  const down = products.priceChanged.filter((c) => c.newPricePerPackCents < c.oldPricePerPackCents).length;
  const moves = [up > 0 ? `${up} up` : '', down > 0 ? `${down} down` : ''].filter(Boolean).join(', ');
  const headline = diff.identical
    ? `No change; tariff of ${diff.new.tariffDate}`
    : [
        plural(products.added.length, 'new product'),
        `${plural(products.priceChanged.length, 'price change')}${moves ? ` (${moves})` : ''}`,
        `${products.removed.length} removed`,
        ...(products.renamed.length > 0 ? [`${products.renamed.length} renamed`] : []),
        ...(barcodes.added.length + barcodes.removed.length + barcodes.changed.length > 0
          ? [`${plural(barcodes.added.length, 'barcode')} added, ${barcodes.removed.length} removed, ${barcodes.changed.length} changed`]
          : []),
      ].join(', ') + `; tariff of ${diff.new.tariffDate}`;
  const productRow = (p: DatasetDiff['products']['added'][number]) => [
    String(p.admCode),
    p.name,
    p.pack,
    `€ ${formatEuroCents(p.pricePerPackCents)}`,
  ];
  const others = products.otherChanged
    .map((c) => ({ ...c, fields: c.fields.filter((field) => field !== 'effectiveFrom') }))
    .filter((c) => c.fields.length > 0);
  const match = (b: { admCode: number; kind: string; units: number }) => `${b.admCode} ${b.kind}×${b.units}`;
  const all: DiffSection[] = [
    { about: 'products', title: 'Products added', headers: ['code', 'name', 'pack', 'price'], rows: products.added.map(productRow) },
    {
      about: 'products',
      title: 'Products removed',
      headers: ['code', 'name', 'pack', 'last price'],
      rows: products.removed.map(productRow),
    },
    {
      about: 'products',
      title: 'Products renamed',
      headers: ['code', 'old name', 'new name'],
      rows: products.renamed.map((r) => [String(r.admCode), r.oldName, r.newName]),
    },
    {
      about: 'products',
      title: 'Price changes',
      headers: ['code', 'name', 'old price', 'new price', 'old reference', 'new reference', 'per'],
      rows: products.priceChanged.map((c) => [
        String(c.admCode),
        c.name,
        formatEuroCents(c.oldPricePerPackCents),
        formatEuroCents(c.newPricePerPackCents),
        c.oldReferencePriceCents === null ? '-' : formatEuroCents(c.oldReferencePriceCents),
        c.newReferencePriceCents === null ? '-' : formatEuroCents(c.newReferencePriceCents),
        c.referenceUnit ?? '-',
      ]),
    },
    {
      about: 'products',
      title: 'Other product changes',
      headers: ['code', 'name', 'what', 'old', 'new'],
      rows: others.map((c) => [
        String(c.admCode),
        c.name,
        c.fields.join(', '),
        c.fields.map((f) => String(c.old[f])).join(', '),
        c.fields.map((f) => String(c.new[f])).join(', '),
      ]),
    },
    { about: 'barcodes', title: 'Barcodes added', headers: ['barcode', 'match'], rows: barcodes.added.map((b) => [b.barcode, match(b)]) },
    {
      about: 'barcodes',
      title: 'Barcodes removed',
      headers: ['barcode', 'match'],
      rows: barcodes.removed.map((b) => [b.barcode, match(b)]),
    },
    {
      about: 'barcodes',
      title: 'Barcodes changed',
      headers: ['barcode', 'old match', 'new match'],
      rows: barcodes.changed.map((c) => [c.barcode, match(c.old), match(c.new)]),
    },
  ];
  const sections = all.filter((section) => section.rows.length > 0);
  return { headline, releases, identical: diff.identical, sections, redatings: redatings(diff) };
}

/** Products whose effective date moved, counted per (old, new) date pair, oldest pair first. */
function redatings(diff: DatasetDiff): { from: string; to: string; count: number }[] {
  const pairs = new Map<string, { from: string; to: string; count: number }>();
  for (const c of diff.products.otherChanged) {
    if (!c.fields.includes('effectiveFrom')) continue;
    const from = String(c.old.effectiveFrom);
    const to = String(c.new.effectiveFrom);
    const pair = pairs.get(`${from} ${to}`) ?? { from, to, count: 0 };
    pair.count += 1;
    pairs.set(`${from} ${to}`, pair);
  }
  return [...pairs.values()].sort((a, b) => (a.from + a.to < b.from + b.to ? -1 : 1));
}
