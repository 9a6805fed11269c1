import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { writeReleaseDir } from '../../release/write-release-dir.ts';
import { renderManifest } from '../../release/manifest.ts';
import type { Runner } from '../context.ts';
import { reportBuild, runBuild } from './build.ts';

const SAMPLE_TARIFF = fileURLToPath(new URL('../../../fixtures/sample/tariff', import.meta.url));
const SAMPLE_BARCODES = fileURLToPath(new URL('../../../fixtures/sample/barcodes.csv', import.meta.url));

export function registerStart(program: Command, run: Runner): void {
  program
    .command('start')
    .description('The main job on embedded defaults (npm start): build the bundled sample tariff into <data-dir>/release')
    .option('--date <YYYY-MM-DD>', 'build the tariff in force on this day (default: today in Europe/Rome)')
    .action(
      run(async (ctx, options: { date?: string }) => {
        const out = join(ctx.dataDir, 'release');
        const built = await runBuild(ctx, { source: [SAMPLE_TARIFF], barcodes: SAMPLE_BARCODES, previous: out, date: options.date });
        await writeReleaseDir(built, out);
        reportBuild(ctx, built, out);
        if (!ctx.json) ctx.io.stdout.write(renderManifest(built.manifest));
      }),
    );
}
