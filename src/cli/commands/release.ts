import type { Command } from 'commander';
import { runRelease, type ReleaseSummary } from '../../pipeline/run-release.ts';
import { buildDate, type Runner } from '../context.ts';
import { StepReporter } from '../step-reporter.ts';
import { BUCKET_OPTION, KEEP_OPTION, SOURCE_PAGE_OPTION, SOURCE_URL_OPTION } from '../shared-options.ts';

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
  program
    .command('release')
    .description('The cron entry point: fetch, build the tariff in force today, publish it if its content changed')
    .option(...BUCKET_OPTION)
    .option(...SOURCE_PAGE_OPTION)
    .option(...SOURCE_URL_OPTION)
    .option('--date <YYYY-MM-DD>', 'act as on this day (default: today in Europe/Rome)')
    .option('--base-url <url>', 'public base URL of the files in the manifest (env TARIFF_BASE_URL)')
    .option('--barcodes <file>', 'approved barcode matches to include (CSV, see docs/dataset.md)')
    .option('--allow-shrink', 'accept a tariff that drops more products than --max-shrink allows')
    .option('--max-shrink <percent>', 'largest share of the previous products a release may drop (env TARIFF_MAX_SHRINK, default 20)')
    .option(...KEEP_OPTION)
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
            settings: await ctx.settings(options),
            dataDir: ctx.dataDir,
            env: ctx.io.env,
            now: ctx.io.now,
            date: buildDate(options.date, ctx.io.now()),
            allowShrink: options.allowShrink ?? false,
            barcodesFile: options.barcodes,
            dryRun: options.dryRun,
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
