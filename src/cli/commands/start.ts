import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { publishRelease, readCurrentManifest } from '../../publish/publish-release.ts';
import { readPublishedRows } from '../../publish/read-published-rows.ts';
import { openRegistry } from '../../registry/open-registry.ts';
import type { Runner } from '../context.ts';
import { createKey } from '../../registry/create-key.ts';
import { describeBuild, runBuild } from './build.ts';
import { bucketSettings } from './publish.ts';
import { startService } from './serve.ts';

// The authority's real cigar list of 22/07/2026 and sample lists for the other categories (fixtures/adm/README.md).
const SAMPLE_TARIFF = fileURLToPath(new URL('../../../fixtures/adm', import.meta.url));
const SAMPLE_BARCODES = fileURLToPath(new URL('../../../fixtures/adm/barcodes.csv', import.meta.url));
export const DEMO_EMAIL = 'demo@example.org';

export function registerStart(program: Command, run: Runner): void {
  program
    .command('start')
    .description(
      'The main job on embedded defaults (npm start): publish the bundled lists (the real cigar list and samples) to the local bucket and serve it on 127.0.0.1:8080',
    )
    .option('--date <YYYY-MM-DD>', 'build the tariff in force on this day (default: today in Europe/Rome)')
    .option('--host <address>', 'address to listen on', '127.0.0.1')
    .option('--port <port>', 'port to listen on', '8080')
    .addHelpText(
      'after',
      `\nOn the first run it creates the account ${DEMO_EMAIL} and prints its API key (shown once).\n\nExample:\n  npm start   # same as: tariff start --data-dir ./var`,
    )
    .action(
      run(async (ctx, options: { date?: string; host: string; port: string }) => {
        const say = (line: string) => ctx.io.stderr.write(`tariff: ${line}\n`);
        const { bucket, keep } = await bucketSettings(ctx, {});
        const previous = await readCurrentManifest(bucket);
        const previousDataset = previous ? await readPublishedRows(bucket, previous, say) : null;
        const built = await runBuild(
          ctx,
          { source: [SAMPLE_TARIFF], barcodes: SAMPLE_BARCODES, date: options.date },
          { previous, previousDataset },
        );
        const published = await publishRelease(bucket, built, { keep });
        for (const line of describeBuild(built, bucket.description)) say(line);
        say(`${published.status} ${published.version}`);

        const registry = await openRegistry({ dataDir: ctx.dataDir, env: ctx.io.env });
        try {
          if (!(await registry.findAccount(DEMO_EMAIL))) {
            const account = await registry.createAccount({ email: DEMO_EMAIL, type: 'User' }, ctx.io.now());
            const { key } = await createKey(registry, account, 'demo', ctx.io.now());
            say(`created the demo account ${DEMO_EMAIL}; its API key (shown only now): ${key}`);
            say(`try: curl -H "Authorization: Bearer ${key}" http://${options.host}:${options.port}/v1/version`);
          } else {
            say(`demo account ${DEMO_EMAIL} exists; a new key: tariff keys create ${DEMO_EMAIL}`);
          }
        } finally {
          await registry.close();
        }

        const { listening, stopped } = await startService(ctx, { host: options.host, port: options.port, bucket: undefined });
        say(`serving ${bucket.description} on ${listening.url}/v1 (Ctrl-C to stop)`);
        await stopped;
      }),
    );
}
