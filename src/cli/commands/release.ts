import type { Command } from 'commander';
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

/** The result line: what happened to the bucket. */
function said(summary: ReleaseSummary): string {
  const { version, published } = summary;
  if (summary.status === 'dry-run') return `dry run: would publish ${version} (current: ${summary.previousVersion ?? 'none'})`;
  if (summary.status === 'repaired') return `repaired ${version}`;
  if (summary.status === 'published') return `published ${version} (was ${published?.previousVersion ?? 'none'})`;
  return `unchanged ${version}`;
}

export function registerRelease(program: Command, run: Runner): void {
  withOptions(program.command('release'), BUCKET_OPTION, SOURCE_PAGE_OPTION, SOURCE_URL_OPTION, ...BUILD_OPTIONS, KEEP_OPTION)
    .description('The cron entry point: fetch, build the tariff in force today, publish it if its content changed')
    .option('--dry-run', 'say what would be published, changing nothing (no snapshot kept, nothing written or uploaded)')
    .option('--quiet', 'print only the result line ("unchanged …" or "published …")')
    .addHelpText(
      'after',
      '\nExit status: 0 published or unchanged; 1 failure, or a list could not be fetched (the last good snapshot was used); 2 usage.\n\nExample (crontab, every three hours):\n  0 */3 * * *  cd /srv/tariff && npx tariff release --quiet',
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
          ctx.result({ ...rest, ...outcome }, said(summary));
          return summary.fetch.some((report) => report.status === 'failed') ? 1 : 0;
        } finally {
          reporter.stop();
        }
      }),
    );
}
