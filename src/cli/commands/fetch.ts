import type { Command } from 'commander';
import { positiveInteger, readConfigFile, sourcePages, sourceUrls } from '../../config/load-settings.ts';
import { errors } from '../../errors.ts';
import { fetchAll, type SourceReport } from '../../fetch/fetch-all.ts';
import { fetchPages } from '../../fetch/fetch-pages.ts';
import { fetchAgent } from '../../fetch/fetch-source.ts';
import { fetchSettings } from '../../fetch/fetch-settings.ts';
import { SnapshotStore } from '../../fetch/snapshot-store.ts';
import { prewarmPdfReader } from '../../source/pdf/read-pdf-runs.ts';
import { dateInRome } from '../../util/dates.ts';
import type { CommandContext, Runner } from '../context.ts';
import type { StepReporter } from '../step-reporter.ts';
import { StepReporter as Reporter } from '../step-reporter.ts';

const SOURCE_URL_OPTION = [
  '--source-url <url...>',
  "one document's URL, a PDF list or notice or an XML feed (repeatable; env TARIFF_SOURCE_URLS, or sourceUrls in <data-dir>/config.json)",
] as const;
const SOURCE_PAGE_OPTION = [
  '--source-page <url...>',
  'an authority page linking to the current lists or to notices, e.g. its price page (repeatable; env TARIFF_SOURCE_PAGES, or sourcePages in <data-dir>/config.json)',
] as const;
export { SOURCE_PAGE_OPTION, SOURCE_URL_OPTION };

export const DEFAULT_MAX_NOTICES = 20;

/** Fetches the configured lists into the snapshot store, reporting each as a step. */
export async function runFetch(ctx: CommandContext, fromCli: { sourceUrl?: string[]; sourcePage?: string[] }, reporter: StepReporter) {
  const config = await readConfigFile(ctx.dataDir);
  const urls = sourceUrls(fromCli.sourceUrl, ctx.io.env, config);
  const pages = sourcePages(fromCli.sourcePage, ctx.io.env, config);
  if (urls.length === 0 && pages.length === 0) throw errors.noSources();
  for (const url of [...pages, ...urls]) if (!/^https?:\/\//.test(url)) throw errors.usage(`source URL ${url} is not http(s)`);
  // The authority publishes PDFs: the reader's threads load PDFium while the pages download.
  if (pages.length > 0) prewarmPdfReader();
  const env = ctx.io.env;
  const { connectTimeoutMs, ...fetch } = fetchSettings(env, ctx.io.now);
  const dispatcher = fetchAgent(connectTimeoutMs);
  try {
    const store = new SnapshotStore(ctx.dataDir);
    const today = dateInRome(ctx.io.now());
    const hooks = {
      onProgress: (url: string, received: number, total: number | null) => reporter.progress(`download ${url}`, received, total),
      onRetry: (url: string, attempt: number, delay: number, reason: string) =>
        reporter.step('fetch', `${url}: ${reason}; retry ${attempt + 1} in ${Math.round(delay / 1000)} s`),
    };
    const maxNotices = positiveInteger(env.TARIFF_MAX_NOTICES, 'TARIFF_MAX_NOTICES') ?? DEFAULT_MAX_NOTICES;
    const fromPages =
      pages.length > 0
        ? await fetchPages(pages, { store, today, fetch: { ...fetch, dispatcher }, maxNotices, ...hooks })
        : { reports: [], documents: [] };
    const fromUrls =
      urls.length > 0 ? await fetchAll(urls, { store, today, fetch: { ...fetch, dispatcher }, ...hooks }) : { reports: [], documents: [] };
    const result = { reports: [...fromPages.reports, ...fromUrls.reports], documents: [...fromPages.documents, ...fromUrls.documents] };
    for (const report of result.reports) {
      reporter.finish(`download ${report.url}`);
      reporter.step('fetch', describeReport(report));
    }
    return result;
  } finally {
    await dispatcher.close();
  }
}

export function describeReport(report: SourceReport): string {
  const dates = report.effectiveDates.map((d) => `${d.date} (${d.when})`).join(', ') || 'no date';
  const what = `${report.label ? `${report.label} ` : ''}${report.url}${report.finalUrl ? ` (redirected to ${report.finalUrl})` : ''}`;
  if (report.status === 'ignored') return `${what} ignored: ${report.error}`;
  if (report.status === 'failed') return `${what} failed: ${report.error}${report.sha256 ? '; keeping the last snapshot' : ''}`;
  if (report.found)
    return `${what}: links to ${report.found.lists.length} list(s) (${report.found.lists.join(', ') || 'none'}) and ${report.found.notices} notice(s)`;
  if (report.status === 'unchanged') return `${what} unchanged (in force from ${dates})`;
  return `${what} changed${report.newTariff ? ': new tariff' : ''} in force from ${dates}, snapshot ${report.sha256!.slice(0, 12)}`;
}

export function registerFetch(program: Command, run: Runner): void {
  program
    .command('fetch')
    .description("Download the authority's lists (conditional, with retries) and keep each changed one as a snapshot")
    .option(...SOURCE_PAGE_OPTION)
    .option(...SOURCE_URL_OPTION)
    .option('--quiet', 'print only the result line')
    .addHelpText(
      'after',
      '\nExit status: 0 when every list was fetched (changed or not), 1 when one failed or a category had no link.\n\nExample:\n  tariff fetch --source-page https://www.adm.gov.it/portale/monopoli/tabacchi/prezzi/prezzi_pubblico',
    )
    .action(
      run(async (ctx, options: { sourceUrl?: string[]; sourcePage?: string[]; quiet?: boolean }) => {
        const reporter = new Reporter(ctx, options.quiet);
        const { reports } = await runFetch(ctx, options, reporter);
        reporter.stop();
        const failed = reports.filter((r) => r.status === 'failed').length;
        const changed = reports.filter((r) => r.status === 'changed').length;
        const unchanged = reports.filter((r) => r.status === 'unchanged').length;
        ctx.result(
          { ok: failed === 0, sources: reports },
          `${reports.length} source(s): ${changed} changed, ${unchanged} unchanged, ${failed} failed`,
        );
        return failed > 0 ? 1 : 0;
      }),
    );
}
