import type { DatasetDiff } from '../dataset/diff-datasets.ts';
import { DATASET_CATEGORIES } from '../source/categories.ts';
import { formatEuroCents } from '../util/format-euro.ts';

/** One section of a diff as every rendering shows it: a title, its columns, its rows (all of them, the most telling first). */
export interface DiffSection {
  /** What its rows are: products, or barcodes (shown after the moved dates). */
  about: 'products' | 'barcodes';
  title: string;
  /** Its rows in a few words ("price changes", "new products"): what a cut note says was left out. */
  noun: string;
  headers: string[];
  rows: string[][];
}

/** A diff as a reader takes it in: the line that says it all, the releases, the counts by category, the sections, the moved dates. */
export interface DiffReport {
  /** "12 new products, 1 price change (1 up), 0 removed, 3 barcodes added; tariff of 2026-12-01". */
  headline: string;
  /** "20261101.1 (tariff 2026-11-01) → 20261201.1 (tariff 2026-12-01)". */
  releases: string;
  identical: boolean;
  /** What changed in each category, one row each and a total: the first table a reviewer reads. */
  summary: { headers: string[]; rows: string[][] };
  sections: DiffSection[];
  /** Products whose effective date moved, per (old, new) date pair: one line each, never one per product. */
  redatings: { from: string; to: string; count: number }[];
}

/** Rows of a long section shown before the rest is folded (`<details>`) in Markdown and HTML: its head, the largest changes. */
export const FOLD_AFTER = 10;

/** "1 product", "3 products". */
export const plural = (count: number, one: string, many = `${one}s`) => `${count} ${count === 1 ? one : many}`;

/** One line of moved effective dates: "2026-07-22 → 2026-12-01: 2821 products". */
export const redatingLine = (d: { from: string; to: string; count: number }) => `${d.from} → ${d.to}: ${plural(d.count, 'product')}`;

/** "€ 5,50". */
const euro = (cents: number) => `€ ${formatEuroCents(cents)}`;

type PriceChange = DatasetDiff['products']['priceChanged'][number];

/** A price change's move, signed and marked: "▲ +€ 0,50", "▼ −€ 0,20"; "=" when only the reference price moved. */
function move(c: PriceChange): string {
  const delta = c.newPricePerPackCents - c.oldPricePerPackCents;
  if (delta === 0) return '= (reference price only)';
  return `${delta > 0 ? '▲ +' : '▼ −'}${euro(Math.abs(delta))}`;
}

/** The move as a share of the old price: "+10,0 %", "−3,5 %" (one decimal, written as in Italy). */
function percent(c: PriceChange): string {
  if (c.oldPricePerPackCents === 0) return '—';
  const share = ((c.newPricePerPackCents - c.oldPricePerPackCents) / c.oldPricePerPackCents) * 100;
  const text = Math.abs(share).toLocaleString('it-IT', { minimumFractionDigits: 1, maximumFractionDigits: 1 });
  return share === 0 ? '0,0 %' : `${share > 0 ? '+' : '−'}${text} %`;
}

/**
 * Largest change first: by the share of the old price moved (a cigar box's € 2 on € 200 is less
 * news than a pack's € 0,50 on € 5), then by the euro moved, then by code; changes of the
 * reference price alone last.
 */
function byLargestChange(a: PriceChange, b: PriceChange): number {
  const cents = (c: PriceChange) => Math.abs(c.newPricePerPackCents - c.oldPricePerPackCents);
  const share = (c: PriceChange) => (c.oldPricePerPackCents === 0 ? 0 : cents(c) / c.oldPricePerPackCents);
  return share(b) - share(a) || cents(b) - cents(a) || a.admCode - b.admCode;
}

/**
 * The sections of a diff, the same for a terminal, a merge request and a page, the news first:
 * price changes (largest first), renamed, added, removed, other changes, barcodes; the counts by
 * category before them; a new list date, which re-dates every product, summarised per date pair.
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
  const productRow = (p: DatasetDiff['products']['added'][number]) => [String(p.admCode), p.name, p.pack, euro(p.pricePerPackCents)];
  const others = products.otherChanged
    .map((c) => ({ ...c, fields: c.fields.filter((field) => field !== 'effectiveFrom') }))
    .filter((c) => c.fields.length > 0);
  const match = (b: { admCode: number; kind: string; units: number }) => `${b.admCode} ${b.kind}×${b.units}`;
  const all: DiffSection[] = [
    {
      about: 'products',
      title: 'Price changes',
      noun: 'price changes',
      headers: ['code', 'name', 'old', 'new', 'change', '%'],
      rows: [...products.priceChanged]
        .sort(byLargestChange)
        .map((c) => [String(c.admCode), c.name, euro(c.oldPricePerPackCents), euro(c.newPricePerPackCents), move(c), percent(c)]),
    },
    {
      about: 'products',
      title: 'Products renamed',
      noun: 'renamed products',
      headers: ['code', 'old name', 'new name'],
      rows: products.renamed.map((r) => [String(r.admCode), r.oldName, r.newName]),
    },
    {
      about: 'products',
      title: 'Products added',
      noun: 'new products',
      headers: ['code', 'name', 'pack', 'price'],
      rows: products.added.map(productRow),
    },
    {
      about: 'products',
      title: 'Products removed',
      noun: 'removed products',
      headers: ['code', 'name', 'pack', 'last price'],
      rows: products.removed.map(productRow),
    },
    {
      about: 'products',
      title: 'Other product changes',
      noun: 'other product changes',
      headers: ['code', 'name', 'what', 'old', 'new'],
      rows: others.map((c) => [
        String(c.admCode),
        c.name,
        c.fields.join(', '),
        c.fields.map((f) => String(c.old[f])).join(', '),
        c.fields.map((f) => String(c.new[f])).join(', '),
      ]),
    },
    {
      about: 'barcodes',
      title: 'Barcodes added',
      noun: 'barcodes added',
      headers: ['barcode', 'match'],
      rows: barcodes.added.map((b) => [b.barcode, match(b)]),
    },
    {
      about: 'barcodes',
      title: 'Barcodes removed',
      noun: 'barcodes removed',
      headers: ['barcode', 'match'],
      rows: barcodes.removed.map((b) => [b.barcode, match(b)]),
    },
    {
      about: 'barcodes',
      title: 'Barcodes changed',
      noun: 'barcodes changed',
      headers: ['barcode', 'old match', 'new match'],
      rows: barcodes.changed.map((c) => [c.barcode, match(c.old), match(c.new)]),
    },
  ];
  const sections = all.filter((section) => section.rows.length > 0);
  return { headline, releases, identical: diff.identical, summary: summaryByCategory(diff), sections, redatings: redatings(diff) };
}

/** The summary's columns, each counted per category. */
const SUMMARY_COLUMNS = ['new', 'removed', 'price up', 'price down', 'renamed', 'barcodes'] as const;
type SummaryColumn = (typeof SUMMARY_COLUMNS)[number];

/** A barcode whose code is in neither release: counted apart. */
const NO_PRODUCT = '(no product)';

/** Counts per category (the dataset's category codes, in their order), with a total row when more than one category moved. */
function summaryByCategory(diff: DatasetDiff): DiffReport['summary'] {
  const { products, barcodes } = diff;
  const counts = new Map<string, Record<SummaryColumn, number>>();
  const count = (category: string | null, column: SummaryColumn) => {
    const key = category ?? NO_PRODUCT;
    const row = counts.get(key) ?? { new: 0, removed: 0, 'price up': 0, 'price down': 0, renamed: 0, barcodes: 0 };
    row[column] += 1;
    counts.set(key, row);
  };
  for (const p of products.added) count(p.category, 'new');
  for (const p of products.removed) count(p.category, 'removed');
  for (const c of products.priceChanged) {
    if (c.newPricePerPackCents > c.oldPricePerPackCents) count(c.category, 'price up');
    if (c.newPricePerPackCents < c.oldPricePerPackCents) count(c.category, 'price down');
  }
  for (const r of products.renamed) count(r.category, 'renamed');
  for (const b of [...barcodes.added, ...barcodes.removed, ...barcodes.changed]) count(b.category, 'barcodes');
  const order: string[] = [...DATASET_CATEGORIES, NO_PRODUCT];
  const keys = [...counts.keys()].sort((a, b) => order.indexOf(a) - order.indexOf(b));
  const rows = keys.map((key) => [key, ...SUMMARY_COLUMNS.map((column) => String(counts.get(key)![column]))]);
  const total = (column: SummaryColumn) => String(keys.reduce((sum, key) => sum + counts.get(key)![column], 0));
  if (keys.length > 1) rows.push(['total', ...SUMMARY_COLUMNS.map(total)]);
  return { headers: ['category', ...SUMMARY_COLUMNS], rows };
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
