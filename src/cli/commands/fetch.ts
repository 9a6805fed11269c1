import type { Command } from 'commander';
import type { Runner } from '../context.ts';
import { SOURCE_PAGE_OPTION, SOURCE_URL_OPTION, withOptions } from '../shared-options.ts';

export function registerFetch(program: Command, run: Runner): void {
  withOptions(program.command('fetch'), SOURCE_PAGE_OPTION, SOURCE_URL_OPTION, ['--quiet', 'print only the result line'])
    .description("Download the authority's lists (conditional, with retries) and keep each changed one as a snapshot")
    .addHelpText(
      'after',
      '\nExit status: 0 when every list was fetched (changed or not), 1 when one failed or a category had no link.\n\nExample:\n  tariff fetch --source-page https://www.adm.gov.it/portale/monopoli/tabacchi/prezzi/prezzi_pubblico',
    )
    .action(
      run(async (ctx, options: { quiet?: boolean }) => {
        // Loaded by a run, not by --help or a mistyped option.
        const [{ fetchFromAuthority }, { StepReporter }] = await Promise.all([
          import('../../pipeline/authority-sources.ts'),
          import('../step-reporter.ts'),
        ]);
        const reporter = new StepReporter(ctx, options.quiet);
        const { reports } = await fetchFromAuthority(await ctx.settings(options), {
          dataDir: ctx.dataDir,
          now: ctx.io.now,
          say: (line) => reporter.step('fetch', line),
          progress: reporter.progress,
          done: reporter.finish,
        });
        reporter.stop();
        const count = (status: string) => reports.filter((r) => r.status === status).length;
        const failed = count('failed');
        ctx.result(
          { ok: failed === 0, sources: reports },
          `${reports.length} source(s): ${count('changed')} changed, ${count('unchanged')} unchanged, ${failed} failed`,
        );
        return failed > 0 ? 1 : 0;
      }),
    );
}
