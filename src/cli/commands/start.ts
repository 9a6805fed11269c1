import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { publishRelease, readCurrentManifest } from '../../publish/publish-release.ts';
import { renderManifest } from '../../release/manifest.ts';
import type { Runner } from '../context.ts';
import { describeBuild, runBuild } from './build.ts';
import { bucketSettings } from './publish.ts';

const SAMPLE_TARIFF = fileURLToPath(new URL('../../../fixtures/sample/tariff', import.meta.url));
const SAMPLE_BARCODES = fileURLToPath(new URL('../../../fixtures/sample/barcodes.csv', import.meta.url));

export function registerStart(program: Command, run: Runner): void {
  program
    .command('start')
    .description('The main job on embedded defaults (npm start): build the bundled sample tariff and publish it to the local bucket <data-dir>/bucket')
    .option('--date <YYYY-MM-DD>', 'build the tariff in force on this day (default: today in Europe/Rome)')
    .addHelpText('after', '\nExample:\n  npm start   # same as: tariff start --data-dir ./var')
    .action(
      run(async (ctx, options: { date?: string }) => {
        const { bucket, keep } = await bucketSettings(ctx, {});
        const previous = await readCurrentManifest(bucket);
        const built = await runBuild(ctx, { source: [SAMPLE_TARIFF], barcodes: SAMPLE_BARCODES, date: options.date }, { previous });
        const published = await publishRelease(bucket, built, { keep });
        if (!ctx.json) for (const line of describeBuild(built, bucket.description)) ctx.io.stderr.write(`tariff: ${line}\n`);
        ctx.result({ ...published, bucket: bucket.description, manifest: built.manifest }, `${published.status} ${published.version} in ${bucket.description}\n${renderManifest(built.manifest)}`);
      }),
    );
}
