import type { DatasetDiff } from '../dataset/diff-datasets.ts';
import { formatEuroCents } from '../util/format-euro.ts';
import { renderTable } from './render-table.ts';

/** Rows per section on a terminal unless asked for all: a first barcode import adds 100,000. */
export const DIFF_ROWS_SHOWN = 50;

/**
 * The diff of two releases as readable sections, for a maintainer at a terminal. What is noise
 * there is summarised: a new list date re-dates every product, which is one line per date pair,
 * not one per product; long sections show their first rows (`--json` or `--all` gives them all).
 */
export function renderDiff(diff: DatasetDiff, rowsShown = DIFF_ROWS_SHOWN): string {
  const out: string[] = [`${diff.old.version} (tariff ${diff.old.tariffDate}) → ${diff.new.version} (tariff ${diff.new.tariffDate})`];
  if (diff.identical) return `${out[0]}\nidentical content\n`;
  const section = (title: string, headers: string[], rows: string[][]) => {
    if (rows.length === 0) return;
    out.push('', `${title} (${rows.length})`, renderTable(headers, rows.slice(0, rowsShown)));
    if (rows.length > rowsShown) out.push(`… and ${rows.length - rowsShown} more (--all or --json shows them)`);
  };
  const { products, barcodes } = diff;
  const productRow = (p: DatasetDiff['products']['added'][number]) => [
    String(p.admCode),
    p.name,
    p.pack,
    `€ ${formatEuroCents(p.pricePerPackCents)}`,
  ];
  section('Products added', ['code', 'name', 'pack', 'price'], products.added.map(productRow));
  section('Products removed', ['code', 'name', 'pack', 'last price'], products.removed.map(productRow));
  section(
    'Products renamed',
    ['code', 'old name', 'new name'],
    products.renamed.map((r) => [String(r.admCode), r.oldName, r.newName]),
  );
  section(
    'Price changes',
    ['code', 'name', 'old price', 'new price', 'old reference', 'new reference', 'per'],
    products.priceChanged.map((c) => [
      String(c.admCode),
      c.name,
      formatEuroCents(c.oldPricePerPackCents),
      formatEuroCents(c.newPricePerPackCents),
      c.oldReferencePriceCents === null ? '-' : formatEuroCents(c.oldReferencePriceCents),
      c.newReferencePriceCents === null ? '-' : formatEuroCents(c.newReferencePriceCents),
      c.referenceUnit ?? '-',
    ]),
  );
  const others = products.otherChanged
    .map((c) => ({ ...c, fields: c.fields.filter((field) => field !== 'effectiveFrom') }))
    .filter((c) => c.fields.length > 0);
  section(
    'Other product changes',
    ['code', 'name', 'what', 'old', 'new'],
    others.map((c) => [
      String(c.admCode),
      c.name,
      c.fields.join(', '),
      c.fields.map((f) => String(c.old[f])).join(', '),
      c.fields.map((f) => String(c.new[f])).join(', '),
    ]),
  );
  const dates = redatings(diff);
  if (dates.length > 0) {
    out.push('', `Effective dates (${dates.reduce((sum, d) => sum + d.count, 0)} products)`);
    for (const d of dates) out.push(`${d.from} → ${d.to}: ${d.count} product${d.count === 1 ? '' : 's'}`);
  }
  const match = (b: { admCode: number; kind: string; units: number }) => `${b.admCode} ${b.kind}×${b.units}`;
  section(
    'Barcodes added',
    ['barcode', 'match'],
    barcodes.added.map((b) => [b.barcode, match(b)]),
  );
  section(
    'Barcodes removed',
    ['barcode', 'match'],
    barcodes.removed.map((b) => [b.barcode, match(b)]),
  );
  section(
    'Barcodes changed',
    ['barcode', 'old match', 'new match'],
    barcodes.changed.map((c) => [c.barcode, match(c.old), match(c.new)]),
  );
  return `${out.join('\n')}\n`;
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
