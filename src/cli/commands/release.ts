import type { Command } from 'commander';
import type { SourceReport } from '../../fetch/fetch-all.ts';
import { describeReport } from '../../pipeline/authority-sources.ts';
import { runRelease, type ReleaseSummary } from '../../pipeline/run-release.ts';
import type { Runner } from '../context.ts';
import { StepReporter } from '../step-reporter.ts';
import { BUCKET_OPTION, BUILD_OPTIONS, KEEP_OPTION, SOURCE_PAGE_OPTION, SOURCE_URL_OPTION, withOptions } from '../shared-options.ts';

interface ReleaseOptions {
  date?: string;
  barcodes?: string;
  allowShrink?: boolean;
  quiet?: boolean;
  dryRun?: boolean;
}

/** The reports of documents that failed: each kept its last snapshot, and the run must say so. */
function failuresOf(summary: ReleaseSummary): SourceReport[] {
  return summary.fetch.filter((report) => report.status === 'failed');
}

/** "sigaretti (HTTP 404)": what failed and why, short enough for the result line. */
function shortFailure(report: SourceReport): string {
  const what = report.label?.replace(/ list$/, '') ?? report.url;
  const reason = (report.error ?? 'failed')
    .replace(`${report.url}: `, '')
    .replace(/^the server answered /, '')
    .split(/[;:]/)[0]!
    .trim();
  return `${what} (${reason})`;
}

/** The result line: what happened to the bucket, and whether any list failed. */
function said(summary: ReleaseSummary): string {
  const { version, published } = summary;
  const outcome =
    summary.status === 'dry-run'
      ? `dry run: would publish ${version} (current: ${summary.previousVersion ?? 'none'})`
      : summary.status === 'repaired'
        ? `repaired ${version}`
        : summary.status === 'published'
          ? `published ${version} (was ${published?.previousVersion ?? 'none'})`
          : `unchanged ${version}`;
  const failures = failuresOf(summary);
  if (failures.length === 0) return outcome;
  return `${outcome}, but ${failures.length} ${failures.length === 1 ? 'list' : 'lists'} failed: ${failures.map(shortFailure).join(', ')}`;
}

export function registerRelease(program: Command, run: Runner): void {
  withOptions(program.command('release'), BUCKET_OPTION, SOURCE_PAGE_OPTION, SOURCE_URL_OPTION, ...BUILD_OPTIONS, KEEP_OPTION)
    .description('The cron entry point: fetch, build the tariff in force today, publish it if its content changed')
    .option('--dry-run', 'say what would be published, changing nothing (no snapshot kept, nothing written or uploaded)')
    .option('--quiet', 'for cron: print nothing when nothing changed; one line when a release is published; failures on stderr')
    .addHelpText(
      'after',
      '\nExit status: 0 published or unchanged; 1 failure, or a list could not be fetched (the last good snapshot was used); 2 usage.\n\n' +
        'Example (crontab, every three hours; cron mails only news and failures):\n' +
        '  5 0,3,6,9,12,15,18,21 * * *  cd /srv/tariff && node_modules/.bin/tariff release --quiet',
    )
    .action(
      run(async (ctx, options: ReleaseOptions) => {
        const reporter = new StepReporter(ctx, options.quiet);
        try {
          const summary = await runRelease({
            ...(await ctx.pipelineRun(options)),
            report: reporter.step,
            progress: reporter.progress,
            done: reporter.finish,
          });
          reporter.stop();
          const { published, ...rest } = summary;
          const outcome = published ? { pruned: published.pruned, cleaned: published.cleaned ?? [], repaired: published.repaired } : {};
          const failures = failuresOf(summary);
          const ok = failures.length === 0;
          const line = said(summary);
          if (!ok && !ctx.json) {
            // Every failed list with its reason reaches stderr, --quiet or not: that is what cron must mail.
            if (options.quiet) for (const report of failures) ctx.io.stderr.write(`tariff: ${describeReport(report)}\n`);
            ctx.io.stderr.write(`tariff: ${line}\n`);
          }
          // On stdout: the result line, unless it went to stderr (a failure) or --quiet has no news to tell.
          const human = ok && (!options.quiet || summary.status !== 'unchanged') ? line : undefined;
          ctx.result(
            {
              ok,
              ...rest,
              ...outcome,
              failures: failures.map((report) => ({ label: report.label ?? null, url: report.url, error: report.error ?? null })),
            },
            human,
          );
          return ok ? 0 : 1;
        } finally {
          reporter.stop();
        }
      }),
    );
}
