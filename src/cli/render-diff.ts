import type { DatasetDiff } from '../dataset/diff-datasets.ts';
import { formatEuroCents } from '../util/format-euro.ts';
import { renderTable } from './render-table.ts';

/** The diff of two releases as readable sections, for a maintainer at a terminal. */
export function renderDiff(diff: DatasetDiff): string {
  const out: string[] = [`${diff.old.version} (tariff ${diff.old.tariffDate}) → ${diff.new.version} (tariff ${diff.new.tariffDate})`];
  if (diff.identical) return `${out[0]}\nidentical content\n`;
  const section = (title: string, count: number, table: () => string) => {
    if (count > 0) out.push('', `${title} (${count})`, table());
  };
  const { products, barcodes } = diff;
  section('Products added', products.added.length, () =>
    renderTable(['code', 'name', 'pack', 'price'], products.added.map((p) => [String(p.admCode), p.name, p.pack, `€ ${formatEuroCents(p.pricePerPackCents)}`])),
  );
  section('Products removed', products.removed.length, () =>
    renderTable(['code', 'name', 'pack', 'price'], products.removed.map((p) => [String(p.admCode), p.name, p.pack, `€ ${formatEuroCents(p.pricePerPackCents)}`])),
  );
  section('Products renamed', products.renamed.length, () => renderTable(['code', 'old name', 'new name'], products.renamed.map((r) => [String(r.admCode), r.oldName, r.newName])));
  section('Price changes', products.priceChanged.length, () =>
    renderTable(
      ['code', 'name', 'old price', 'new price', 'old €/kg', 'new €/kg'],
      products.priceChanged.map((c) => [String(c.admCode), c.name, formatEuroCents(c.oldPricePerPackCents), formatEuroCents(c.newPricePerPackCents), formatEuroCents(c.oldPricePerKgCents), formatEuroCents(c.newPricePerKgCents)]),
    ),
  );
  section('Other product changes', products.otherChanged.length, () => renderTable(['code', 'name', 'fields'], products.otherChanged.map((c) => [String(c.admCode), c.name, c.fields.join(', ')])));
  section('Barcodes added', barcodes.added.length, () => renderTable(['barcode', 'code', 'kind', 'units'], barcodes.added.map((b) => [b.barcode, String(b.admCode), b.kind, String(b.units)])));
  section('Barcodes removed', barcodes.removed.length, () => renderTable(['barcode', 'code', 'kind', 'units'], barcodes.removed.map((b) => [b.barcode, String(b.admCode), b.kind, String(b.units)])));
  section('Barcodes changed', barcodes.changed.length, () =>
    renderTable(['barcode', 'old match', 'new match'], barcodes.changed.map((c) => [c.barcode, `${c.old.admCode} ${c.old.kind}×${c.old.units}`, `${c.new.admCode} ${c.new.kind}×${c.new.units}`])),
  );
  return `${out.join('\n')}\n`;
}
