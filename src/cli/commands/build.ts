import type { Command } from 'commander';
import { summariseChanges } from '../../dataset/summarise-changes.ts';
import { runBuild } from '../../pipeline/run-build.ts';
import { buildDate, type Runner } from '../context.ts';
import { StepReporter } from '../step-reporter.ts';

interface BuildCommandOptions {
  source: string[];
  out: string;
  date?: string;
  previous?: string;
  allowShrink?: boolean;
  barcodes?: string;
  dryRun?: boolean;
}

export function registerBuild(program: Command, run: Runner): void {
  program
    .command('build')
    .description('Build a release (three gzip files and manifest.json) from the authority tariff')
    .requiredOption(
      '--source <file-dir-or-url...>',
      "the authority's PDF price lists and notices, or XML feeds: a file, a directory of them, or an http(s) URL (repeatable)",
    )
    .requiredOption('--out <dir>', 'release directory to write (replaced whole, atomically)')
    .option('--date <YYYY-MM-DD>', 'build the tariff in force on this day (default: today in Europe/Rome)')
    .option('--base-url <url>', 'public base URL of the files in the manifest (env TARIFF_BASE_URL, default http://127.0.0.1:8080/v1)')
    .option('--previous <dir-or-manifest>', 'the previous release: decides the version and guards against shrinking')
    .option('--barcodes <file>', 'approved barcode matches to include (CSV, see docs/dataset.md)')
    .option('--allow-shrink', 'accept a tariff that drops more products than --max-shrink allows')
    .option('--max-shrink <percent>', 'largest share of the previous products a build may drop (env TARIFF_MAX_SHRINK, default 20)')
    .option('--dry-run', 'say what would be built, and write nothing')
    .addHelpText('after', '\nExample:\n  tariff build --source feeds/ --previous var/release --out var/release --date 2026-11-15')
    .action(
      run(async (ctx, options: BuildCommandOptions) => {
        const reporter = new StepReporter(ctx);
        const built = await runBuild({
          settings: await ctx.settings(options),
          dataDir: ctx.dataDir,
          now: ctx.io.now,
          date: buildDate(options.date, ctx.io.now()),
          allowShrink: options.allowShrink ?? false,
          sources: options.source,
          barcodesFile: options.barcodes,
          previous: options.previous,
          out: options.out,
          dryRun: options.dryRun,
          report: reporter.step,
        });
        ctx.result(
          {
            version: built.manifest.version,
            unchanged: built.unchanged,
            changesSince: built.changesSince,
            changes: summariseChanges(built.changes),
            out: options.out,
            dryRun: options.dryRun ?? false,
            manifest: built.manifest,
            skippedBarcodes: built.skippedBarcodes.length,
            pending: built.pending,
            notices: built.notices,
          },
          built.manifest.version,
        );
      }),
    );
}
