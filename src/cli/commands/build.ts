import type { Command } from 'commander';
import { errors } from '../../errors.ts';
import { parseCalendarDate } from '../../util/dates.ts';
import type { Runner } from '../context.ts';
import { BUILD_OPTIONS, withOptions } from '../shared-options.ts';

interface BuildCommandOptions {
  source: string[];
  out: string;
  date?: string;
  previous?: string;
  allowShrink?: boolean;
  barcodes?: string;
  dryRun?: boolean;
  noticeDate?: string[];
}

/** `--notice-date 1-ANTEPRIMA.pdf=2026-12-01`, repeatable: the file, the ISO day. */
function parseNoticeDates(values: string[] = []): Map<string, string> {
  const dates = new Map<string, string>();
  for (const value of values) {
    const match = /^(.+)=(\d{4}-\d{2}-\d{2})$/.exec(value);
    const iso = match ? parseCalendarDate(match[2]!) : null;
    if (!match || !iso) throw errors.usage(`--notice-date ${value}: expected FILE=YYYY-MM-DD (e.g. 1-ANTEPRIMA.pdf=2026-12-01)`);
    dates.set(match[1]!, iso);
  }
  return dates;
}

const roundAll = (timings: Record<string, number>) => Object.fromEntries(Object.entries(timings).map(([k, v]) => [k, Math.round(v)]));

export function registerBuild(program: Command, run: Runner): void {
  withOptions(program.command('build'), ...BUILD_OPTIONS)
    .description('Build a release (three gzip files and manifest.json) from the authority tariff')
    .requiredOption(
      '--source <file-dir-or-url...>',
      "the authority's PDF price lists and notices, or XML feeds: a file, a directory of them, or an http(s) URL (repeatable)",
    )
    .requiredOption('--out <dir>', 'release directory to write (replaced whole, atomically)')
    .option('--previous <dir-or-manifest>', 'the previous release: decides the version and guards against shrinking')
    .option('--dry-run', 'say what would be built, and write nothing')
    .option(
      '--notice-date <file=date...>',
      "the effective date of a price-change notice that states none (the authority's previews are dated on the page that links them), e.g. 1-ANTEPRIMA.pdf=2026-12-01 (repeatable)",
    )
    .addHelpText('after', '\nExample:\n  tariff build --source feeds/ --previous var/release --out var/release --date 2026-11-15')
    .action(
      run(async (ctx, options: BuildCommandOptions) => {
        // Loaded by a build, not by its --help or a mistyped option: the pipeline is most of the command's start-up.
        const [{ runBuild }, { summariseChanges }, { StepReporter }] = await Promise.all([
          import('../../pipeline/run-build.ts'),
          import('../../dataset/summarise-changes.ts'),
          import('../step-reporter.ts'),
        ]);
        const reporter = new StepReporter(ctx);
        const built = await runBuild({
          ...(await ctx.pipelineRun(options)),
          sources: options.source,
          noticeDates: parseNoticeDates(options.noticeDate),
          previous: options.previous,
          out: options.out,
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
            duplicates: built.duplicates,
            setAside: built.setAside,
            // Where the time went, in milliseconds: each step, and the stages of building the files.
            timings: { steps: built.stepTimings, build: roundAll(built.timings) },
          },
          built.manifest.version,
        );
      }),
    );
}
