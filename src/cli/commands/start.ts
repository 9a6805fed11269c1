import { fileURLToPath } from 'node:url';
import { Option, type Command } from 'commander';
import { publicAddressWarning } from '../../service/public-address.ts';
import { SERVICE_NODE_FLAGS } from '../../service/service-runtime.ts';
import type { Settings } from '../../config/settings.ts';
import { buildDate, type CommandContext, type Runner } from '../context.ts';

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
    .option('--host <address>', 'address to listen on (default 127.0.0.1)')
    .option('--port <port>', 'port to listen on (default 8080)')
    // The second half of `start`, once published: the process replaces itself with it.
    .addOption(new Option('--serving').hideHelp())
    .addHelpText(
      'after',
      `\nOn the first run it creates the account ${DEMO_EMAIL} and prints its API key (shown once).\n\nExample:\n  npm start   # same as: tariff start --data-dir ./var`,
    )
    .action(
      run(async (ctx, options: { date?: string; serving?: boolean }) => {
        const say = (line: string) => ctx.io.stderr.write(`tariff: ${line}\n`);
        const settings = await ctx.settings(options);
        if (!options.serving) {
          await publish(ctx, settings, options.date, say);
          // Published, the process starts afresh as the service (the same pid, on the service's
          // flags), leaving behind the heap the build grew: one process serves, with a service's
          // memory. Where it cannot (Windows), it serves as it is.
          const { endPdfReaders } = await import('../../source/pdf/read-pdf-runs.ts');
          await endPdfReaders();
          ctx.io.replace?.(['--serving'], SERVICE_NODE_FLAGS);
        }

        // The serving half loads the service, not the pipeline that published.
        const [{ createKey }, { startService }, { untilSignalled }] = await Promise.all([
          import('../../registry/create-key.ts'),
          import('../../service/start-service.ts'),
          import('../../service/until-signalled.ts'),
        ]);
        const demoKey = await ctx.withRegistry(async (registry) => {
          if (await registry.findAccount(DEMO_EMAIL)) {
            say(`demo account ${DEMO_EMAIL} exists; a new key: npm run tariff -- keys create ${DEMO_EMAIL}`);
            return null;
          }
          const account = await registry.createAccount({ email: DEMO_EMAIL, type: 'User' }, ctx.io.now());
          const { key } = await createKey(registry, account, 'demo', ctx.io.now());
          say(`created the demo account ${DEMO_EMAIL}; its API key (shown only now): ${key}`);
          return key;
        });

        const warning = publicAddressWarning(settings);
        if (warning) ctx.warn(warning);
        const service = await startService({
          settings,
          dataDir: ctx.dataDir,
          env: ctx.io.env,
          now: ctx.io.now,
          stdout: ctx.io.stdout,
        });
        say(`serving on ${service.listening.reachableUrl}/v1 (Ctrl-C to stop)`);
        // Said once the service listens: the address it names is the one it got (port 0 is any free one).
        if (demoKey) say(`try: curl -H "Authorization: Bearer ${demoKey}" ${service.listening.reachableUrl}/v1/version`);
        await untilSignalled(service);
      }),
    );
}

/** The release pipeline of `tariff release`, on the bundled lists instead of the authority's pages. */
async function publish(ctx: CommandContext, settings: Settings, date: string | undefined, say: (line: string) => void): Promise<void> {
  const [{ runRelease }, { readSources }] = await Promise.all([
    import('../../pipeline/run-release.ts'),
    import('../../fetch/read-sources.ts'),
  ]);
  const summary = await runRelease({
    ...ctx.writer(settings),
    env: ctx.io.env,
    now: ctx.io.now,
    date: buildDate(date, ctx.io.now()),
    // The demo's own local bucket: --date is the only way to see another day's tariff there.
    allowOtherDate: true,
    allowShrink: false,
    barcodesFile: SAMPLE_BARCODES,
    documents: async () => ({ documents: await readSources([SAMPLE_TARIFF], settings), reports: [] }),
    report: (step, line) => say(`${step}: ${line}`),
  });
  say(`${summary.status} ${summary.version} in ${summary.bucket}`);
}
