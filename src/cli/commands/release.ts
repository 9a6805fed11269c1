import type { Command } from 'commander';
import { errors } from '../../errors.ts';
import type { SourceReport } from '../../fetch/fetch-all.ts';
import type { ReleaseSummary } from '../../pipeline/run-release.ts';
import type { dryRunLine } from '../../publish/plan-publication.ts';
import type { Runner } from '../context.ts';
import { BUCKET_OPTION, BUILD_OPTIONS, KEEP_OPTION, SOURCE_PAGE_OPTION, SOURCE_URL_OPTION, withOptions } from '../shared-options.ts';

interface ReleaseOptions {
  date?: string;
  barcodes?: string;
  allowShrink?: boolean;
  allowOtherDate?: boolean;
  quiet?: boolean;
  dryRun?: boolean;
  candidate?: string;
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

/** What went wrong besides the lists: damage to the previous release that no intact copy could repair. */
const unrepairedOf = (summary: ReleaseSummary): string[] => summary.published?.unrepaired ?? [];

/** The result line: what happened to the bucket, and whether any list failed or damage stayed. */
function said(summary: ReleaseSummary, planLine: typeof dryRunLine): string {
  const { version, published, plan } = summary;
  const outcome =
    summary.status === 'dry-run'
      ? plan
        ? planLine(plan)
        : `dry run: ${version}, nothing to publish`
      : summary.status === 'repaired'
        ? `repaired ${version}`
        : summary.status === 're-signed'
          ? `re-signed ${version} until ${published?.expires}`
          : summary.status === 'published'
            ? `published ${version} (was ${published?.previousVersion ?? 'none'})${published?.repaired ? `, repaired ${published.previousVersion}` : ''}`
            : `unchanged ${version}`;
  // Said on the line cron mails: a tariff other than today's went to the clients.
  const day =
    summary.date !== summary.today && summary.status !== 'unchanged' ? `, the tariff in force on ${summary.date}, not today's` : '';
  const failures = failuresOf(summary).map(shortFailure);
  const lists = failures.length === 1 ? 'list' : 'lists';
  const problems = [
    ...(failures.length > 0 ? [`${failures.length} ${lists} failed: ${failures.join(', ')}`] : []),
    ...(unrepairedOf(summary).length > 0 ? [`${published!.previousVersion} stays damaged (no intact copy at hand)`] : []),
  ];
  return problems.length === 0 ? `${outcome}${day}` : `${outcome}${day}, but ${problems.join('; ')}`;
}

/** --candidate belongs to a dry run: a real run writes its release in <data-dir>/releases already. */
function candidateDir(options: ReleaseOptions): string | undefined {
  if (options.candidate && !options.dryRun) throw errors.usage('--candidate writes the release a --dry-run would publish: add --dry-run');
  return options.candidate;
}

export function registerRelease(program: Command, run: Runner): void {
  withOptions(program.command('release'), BUCKET_OPTION, SOURCE_PAGE_OPTION, SOURCE_URL_OPTION, ...BUILD_OPTIONS, KEEP_OPTION)
    .description('The cron entry point: fetch, build the tariff in force today, publish it if its content changed')
    .option(
      '--allow-other-date',
      'publish the tariff in force on --date though it is not today: every client gets it; the current version never moves back (only tariff rollback does)',
    )
    .option('--dry-run', 'say what would be published, changing nothing (no snapshot kept, nothing written or uploaded)')
    .option('--candidate <dir>', 'with --dry-run: write the release it would publish in <dir>, to compare: tariff diff current <dir>')
    .option('--quiet', 'for cron: print nothing when nothing changed; one line when a release is published; failures on stderr')
    .addHelpText(
      'after',
      '\nExit status: 0 published or unchanged; 1 failure, or a list could not be fetched (the last good snapshot was used); 2 usage.\n\n' +
        'Example (crontab, every three hours; cron mails only news and failures):\n' +
        '  5 0,3,6,9,12,15,18,21 * * *  tariff release --quiet',
    )
    .action(
      run(async (ctx, options: ReleaseOptions) => {
        // Loaded by a run, not by --help or a mistyped option: the pipeline is most of the command's start-up.
        const [{ runRelease }, { describeReport }, { dryRunLine }, { StepReporter }] = await Promise.all([
          import('../../pipeline/run-release.ts'),
          import('../../pipeline/describe-sources.ts'),
          import('../../publish/plan-publication.ts'),
          import('../step-reporter.ts'),
        ]);
        const reporter = new StepReporter(ctx, options.quiet);
        try {
          const summary = await runRelease({
            ...(await ctx.pipelineRun(options)),
            candidateDir: candidateDir(options),
            report: reporter.step,
            progress: reporter.progress,
            done: reporter.finish,
          });
          reporter.stop();
          const { published, ...rest } = summary;
          const outcome = published
            ? {
                pruned: published.pruned,
                cleaned: published.cleaned ?? [],
                repaired: published.repaired,
                unrepaired: published.unrepaired ?? [],
              }
            : {};
          const failures = failuresOf(summary);
          const ok = failures.length === 0 && unrepairedOf(summary).length === 0;
          const line = said(summary, dryRunLine);
          if (!ok && !ctx.json) {
            // Every failed list with its reason reaches stderr, --quiet or not: that is what cron must mail.
            if (options.quiet) for (const report of failures) ctx.io.stderr.write(`tariff: ${describeReport(report)}\n`);
            for (const problem of unrepairedOf(summary)) ctx.io.stderr.write(`tariff: ${problem}\n`);
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
