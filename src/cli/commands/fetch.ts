import type { Command } from 'commander';
import { positiveInteger, readConfigFile, sourceUrls } from '../../config/load-settings.ts';
import { errors } from '../../errors.ts';
import { fetchAll, type SourceReport } from '../../fetch/fetch-all.ts';
import { fetchAgent } from '../../fetch/fetch-source.ts';
import { DEFAULT_RETRY_POLICY } from '../../fetch/retry-policy.ts';
import { SnapshotStore } from '../../fetch/snapshot-store.ts';
import { MAX_SOURCE_BYTES } from '../../source/read-sources.ts';
import { dateInRome } from '../../util/dates.ts';
import type { CommandContext, Runner } from '../context.ts';
import type { StepReporter } from '../step-reporter.ts';
import { StepReporter as Reporter } from '../step-reporter.ts';

const SOURCE_URL_OPTION = ['--source-url <url...>', "an authority list's URL (repeatable; env TARIFF_SOURCE_URLS, or sourceUrls in <data-dir>/config.json)"] as const;
export { SOURCE_URL_OPTION };

/** Fetches the configured lists into the snapshot store, reporting each as a step. */
export async function runFetch(ctx: CommandContext, fromCli: string[] | undefined, reporter: StepReporter) {
  const config = await readConfigFile(ctx.dataDir);
  const urls = sourceUrls(fromCli, ctx.io.env, config);
  if (urls.length === 0) throw errors.noSources();
  for (const url of urls) if (!/^https?:\/\//.test(url)) throw errors.usage(`source URL ${url} is not http(s)`);
  const env = ctx.io.env;
  const dispatcher = fetchAgent(positiveInteger(env.TARIFF_FETCH_CONNECT_TIMEOUT_MS, 'TARIFF_FETCH_CONNECT_TIMEOUT_MS') ?? 10_000);
  try {
    const result = await fetchAll(urls, {
      store: new SnapshotStore(ctx.dataDir),
      today: dateInRome(ctx.io.now()),
      fetch: {
        dispatcher,
        maxBytes: positiveInteger(env.TARIFF_FETCH_MAX_BYTES, 'TARIFF_FETCH_MAX_BYTES') ?? MAX_SOURCE_BYTES,
        headersTimeoutMs: positiveInteger(env.TARIFF_FETCH_HEADERS_TIMEOUT_MS, 'TARIFF_FETCH_HEADERS_TIMEOUT_MS') ?? 30_000,
        bodyTimeoutMs: positiveInteger(env.TARIFF_FETCH_BODY_TIMEOUT_MS, 'TARIFF_FETCH_BODY_TIMEOUT_MS') ?? 60_000,
        policy: {
          attempts: positiveInteger(env.TARIFF_FETCH_ATTEMPTS, 'TARIFF_FETCH_ATTEMPTS') ?? DEFAULT_RETRY_POLICY.attempts,
          baseDelayMs: positiveInteger(env.TARIFF_FETCH_RETRY_BASE_MS, 'TARIFF_FETCH_RETRY_BASE_MS') ?? DEFAULT_RETRY_POLICY.baseDelayMs,
          maxDelayMs: positiveInteger(env.TARIFF_FETCH_RETRY_MAX_MS, 'TARIFF_FETCH_RETRY_MAX_MS') ?? DEFAULT_RETRY_POLICY.maxDelayMs,
        },
        sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
        now: ctx.io.now,
      },
      onProgress: (url, received, total) => reporter.progress(`download ${url}`, received, total),
      onRetry: (url, attempt, delay, reason) => reporter.step('fetch', `${url}: ${reason}; retry ${attempt + 1} in ${Math.round(delay / 1000)} s`),
    });
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
  if (report.status === 'failed') return `${report.url} failed: ${report.error}${report.sha256 ? '; keeping the last snapshot' : ''}`;
  if (report.status === 'unchanged') return `${report.url} unchanged (in force from ${dates})`;
  return `${report.url} changed${report.newTariff ? ': new tariff' : ''} in force from ${dates}, snapshot ${report.sha256!.slice(0, 12)}`;
}

export function registerFetch(program: Command, run: Runner): void {
  program
    .command('fetch')
    .description("Download the authority's lists (conditional, with retries) and keep each changed one as a snapshot")
    .option(...SOURCE_URL_OPTION)
    .option('--quiet', 'print only the result line')
    .addHelpText('after', '\nExit status: 0 when every list was fetched (changed or not), 1 when one failed.\n\nExample:\n  tariff fetch --source-url https://example.org/sigarette.xml --source-url https://example.org/sigari.xml')
    .action(
      run(async (ctx, options: { sourceUrl?: string[]; quiet?: boolean }) => {
        const reporter = new Reporter(ctx, options.quiet);
        const { reports } = await runFetch(ctx, options.sourceUrl, reporter);
        reporter.stop();
        const failed = reports.filter((r) => r.status === 'failed').length;
        const changed = reports.filter((r) => r.status === 'changed').length;
        ctx.result({ ok: failed === 0, sources: reports }, `${reports.length} list(s): ${changed} changed, ${reports.length - changed - failed} unchanged, ${failed} failed`);
        return failed > 0 ? 1 : 0;
      }),
    );
}
