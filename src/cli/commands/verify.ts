import type { Command } from 'commander';
import { errors } from '../../errors.ts';
import { verifyRelease } from '../../release/verify-release.ts';
import type { Runner } from '../context.ts';

export function registerVerify(program: Command, run: Runner): void {
  program
    .command('verify')
    .description('Re-hash a release directory against its manifest and open every format with its own engine')
    .argument('<dir>', 'release directory (holding manifest.json)')
    .addHelpText('after', '\nExit status: 0 when every check holds, 1 otherwise.\n\nExample:\n  tariff verify var/release')
    .action(
      run(async (ctx, dir: string) => {
        const report = await verifyRelease(dir);
        if (ctx.json) {
          ctx.result(report);
          return report.ok ? 0 : 1;
        }
        if (!report.ok) throw errors.verifyFailed(dir, report.problems);
        const counts = report.checked[0]!;
        ctx.result(report, `ok ${report.version}: json, sqlite and docdb match the manifest and hold the same ${counts.products} products and ${counts.barcodes} barcodes`);
      }),
    );
}
