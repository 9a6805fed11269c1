import type { CategoryCoverage } from '../fetch/collect-documents.ts';
import type { SourceReport } from '../fetch/fetch-all.ts';

/** One line for the operator about one source. */
export function describeReport(report: SourceReport): string {
  const dates = report.effectiveDates.map((d) => `${d.date} (${d.when})`).join(', ') || 'no date';
  const what = [report.label, report.url, report.finalUrl ? `(redirected to ${report.finalUrl})` : ''].filter(Boolean).join(' ');
  if (report.status === 'ignored') return `${what} ignored: ${report.error}`;
  if (report.status === 'failed') return `${what} failed: ${report.error}${report.sha256 ? '; keeping the last snapshot' : ''}`;
  if (report.found) return `${what}: links to ${report.found.documents} document(s)`;
  if (report.status === 'unchanged') return `${what} unchanged, in force from ${dates}`;
  return `${what} changed${report.newTariff ? ': new tariff' : ''} in force from ${dates}, snapshot ${(report.sha256 ?? '').slice(0, 12)}`;
}

/** "lists found: cigarettes, cigars; not found: inhalation_liquids (not required)": what the pages linked against what the run requires. */
export function describeCoverage(coverage: CategoryCoverage): string {
  const missing = coverage.missing.map((category) => `${category} (${coverage.required.includes(category) ? 'required' : 'not required'})`);
  return `lists found: ${coverage.found.join(', ') || 'none'}; not found: ${missing.join(', ') || 'none'}`;
}
