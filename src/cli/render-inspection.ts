import type { ColumnRole } from '../source/pdf/header-roles.ts';
import type { DocumentInspection } from '../source/pdf/inspect-document.ts';

const ROLES: ColumnRole[] = ['code', 'product', 'pack', 'reference', 'fromReference', 'toReference', 'packPrice'];
const KINDS: Record<DocumentInspection['kind'], string> = {
  list: "a category's national price list",
  campione: "a Campione d'Italia price list (left out of the national tariff)",
  notice: 'a price-change notice',
  other: 'not a price list or a notice (no table header of the authority)',
};

/** The roles a document's tables use, in a fixed order: the columns of the CSV and of the text table. */
function rolesOf(inspection: DocumentInspection): ColumnRole[] {
  const used = new Set(inspection.tables.flatMap((table) => table.columns.flatMap((page) => page.columns.map((c) => c.role))));
  return ROLES.filter((role) => used.has(role));
}

/** The rows as CSV (RFC 4180), one line per row with its page and row number. */
export function inspectionCsv(inspection: DocumentInspection): string {
  const roles = rolesOf(inspection);
  const quote = (value: string) => (/[",\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value);
  const lines = [['page', 'row', ...roles].join(',')];
  for (const table of inspection.tables)
    for (const row of table.rows)
      lines.push([String(row.page), String(row.row), ...roles.map((role) => quote(row.cells[role] ?? ''))].join(','));
  return `${lines.join('\n')}\n`;
}

/** What a person reads: the document's kind, category and date, its columns per page, its rows, its problems. */
export function inspectionText(inspection: DocumentInspection, options: { rows: boolean }): string {
  const out: string[] = [`${inspection.source}: ${KINDS[inspection.kind]}, ${inspection.pages} page(s)`];
  if (inspection.category || inspection.categoryText)
    out.push(`  category: ${inspection.category ?? 'unknown'} ("${inspection.categoryText}")`);
  out.push(`  date: ${inspection.date ?? 'none stated'}`);
  if (inspection.referenceUnit) out.push(`  reference price per: ${inspection.referenceUnit}`);
  const x = (value: number | null) => (value === null ? '…' : value.toFixed(1));
  for (const [t, table] of inspection.tables.entries()) {
    out.push(
      `  table ${t + 1} (${table.kind}, from page ${table.page}): ${table.rows.length} row(s); header ${table.header.map((h) => `"${h}"`).join(' | ')}`,
    );
    for (const { page, columns } of table.columns)
      out.push(`    page ${page} columns: ${columns.map((c) => `${c.role} ${x(c.from)}–${x(c.to)}`).join(', ')}`);
  }
  if (options.rows && inspection.tables.length > 0) {
    const roles = rolesOf(inspection);
    const rows = inspection.tables.flatMap((table) =>
      table.rows.map((row) => [`${row.page}`, `${row.row}`, ...roles.map((r) => row.cells[r] ?? '')]),
    );
    const head = ['page', 'row', ...roles];
    const widths = head.map((h, i) => Math.min(60, Math.max(h.length, ...rows.map((row) => row[i]!.length))));
    for (const row of [head, ...rows])
      out.push(
        `  ${row
          .map((cell, i) => cell.padEnd(widths[i]!))
          .join('  ')
          .trimEnd()}`,
      );
  }
  if (inspection.problems.length === 0 && inspection.problemsOmitted === 0) out.push('  no problems');
  for (const p of inspection.problems)
    out.push(
      `  problem: ${p.page === null ? '' : `page ${p.page}${p.row === null ? '' : ` row ${p.row}`}: `}${p.what ? `(${p.what}) ` : ''}${p.detail}`,
    );
  if (inspection.problemsOmitted > 0) out.push(`  and ${inspection.problemsOmitted} more problem(s), counted but not kept`);
  return `${out.join('\n')}\n`;
}
