import type { DatasetDiff } from '../dataset/diff-datasets.ts';
import { diffReport, redatingLine, type DiffSection } from './diff-sections.ts';
import { renderTable } from './render-table.ts';

/** Rows per section on a terminal unless asked for all: a first barcode import adds 100,000. */
export const DIFF_ROWS_SHOWN = 50;

/**
 * The diff of two releases as readable sections, for a maintainer at a terminal. What is noise
 * there is summarised: a new list date re-dates every product, which is one line per date pair,
 * not one per product; long sections show their first rows (`--json` or `--all` gives them all).
 */
export function renderDiff(diff: DatasetDiff, rowsShown = DIFF_ROWS_SHOWN): string {
  const report = diffReport(diff);
  const out: string[] = [report.releases];
  if (report.identical) return `${out[0]}\nidentical content\n`;
  out.push('', renderTable(report.summary.headers, report.summary.rows));
  const show = (about: DiffSection['about']) => {
    for (const section of report.sections.filter((s) => s.about === about)) {
      out.push('', `${section.title} (${section.rows.length})`, renderTable(section.headers, section.rows.slice(0, rowsShown)));
      if (section.rows.length > rowsShown) out.push(`… and ${section.rows.length - rowsShown} more (--all or --json shows them)`);
    }
  };
  show('products');
  // The moved dates between the product sections and the barcodes.
  if (report.redatings.length > 0) {
    out.push('', `Effective dates (${report.redatings.reduce((sum, d) => sum + d.count, 0)} products)`);
    out.push(...report.redatings.map(redatingLine));
  }
  show('barcodes');
  return `${out.join('\n')}\n`;
}
