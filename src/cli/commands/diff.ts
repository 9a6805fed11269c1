import type { Command } from 'commander';
import { diffDatasets } from '../../dataset/diff-datasets.ts';
import { readReleaseDataset } from '../../release/read-release.ts';
import type { Runner } from '../context.ts';
import { DIFF_ROWS_SHOWN, renderDiff } from '../render-diff.ts';

export function registerDiff(program: Command, run: Runner): void {
  program
    .command('diff')
    .description('Show what changed between two releases: products, prices, barcodes')
    .argument('<old>', 'older release directory or manifest.json')
    .argument('<new>', 'newer release directory or manifest.json')
    .option('--all', `list every row of every section (default: the first ${DIFF_ROWS_SHOWN}, then a count)`)
    .addHelpText(
      'after',
      '\nExit status, like diff(1): 0 identical, 1 different, 2 error.\n\nExample:\n  tariff diff releases/20261101.1 releases/20261115.1',
    )
    .action(
      run(
        async (ctx, oldPath: string, newPath: string, options: { all?: boolean }) => {
          const [older, newer] = await Promise.all([readReleaseDataset(oldPath), readReleaseDataset(newPath)]);
          const diff = diffDatasets(older.dataset, newer.dataset);
          ctx.result(diff, renderDiff(diff, options.all ? Infinity : DIFF_ROWS_SHOWN));
          return diff.identical ? 0 : 1;
        },
        { errorExit: 2 },
      ),
    );
}
