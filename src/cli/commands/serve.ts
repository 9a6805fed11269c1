import cluster from 'node:cluster';
import type { Command } from 'commander';
import { publicAddressWarning } from '../../service/public-address.ts';
import { hasServiceFlags, SERVICE_NODE_FLAGS } from '../../service/service-runtime.ts';
import type { CommandFlags, Runner } from '../context.ts';

export function registerServe(program: Command, run: Runner): void {
  program
    .command('serve')
    .description('Run the /v1 service: API keys, read quota, the manifest and the downloads, in front of the bucket')
    .option('--host <address>', 'address to listen on (env TARIFF_HOST, default 127.0.0.1)')
    .option('--port <port>', 'port to listen on, 0 for any free one (env TARIFF_PORT, default 8080)')
    .option('--bucket <uri>', 'bucket: s3://bucket/prefix or a folder (env TARIFF_BUCKET, default <data-dir>/bucket)')
    .option('--base-url <url>', "this service's public /v1 URL, written in the served manifest's file URLs (env TARIFF_BASE_URL)")
    .option('--workers <n>', 'processes sharing the port, e.g. the number of cores (env TARIFF_WORKERS, default 1)')
    .addHelpText(
      'after',
      '\nLogs one JSON line per request on stdout. Stops on SIGINT or SIGTERM.\n\nExample:\n  tariff serve --host 0.0.0.0 --port 8080 --bucket s3://tariff-releases/prod --base-url https://tariff.example.it/v1',
    )
    .action(
      run(async (ctx, options: CommandFlags) => {
        // A service runs on its own Node.js flags: where it was started without them, it replaces
        // itself by the same command with them (one process, the same pid), else runs as it is.
        if (cluster.isPrimary && !hasServiceFlags()) ctx.io.replace?.([], SERVICE_NODE_FLAGS);
        const settings = await ctx.settings(options);
        const warning = publicAddressWarning(settings);
        if (warning && cluster.isPrimary) ctx.warn(warning);
        // What each role runs is loaded by it, not by --help: the supervisor holds no service.
        if (settings.workers > 1 && cluster.isPrimary) {
          const { superviseWorkers } = await import('../../service/workers.ts');
          await superviseWorkers({
            workers: settings.workers,
            shutdownGraceMs: settings.shutdownGraceMs,
            stdout: ctx.io.stdout,
            metrics: settings,
          });
          // Every worker and listener is closed: nothing keeps the primary, which ends by itself.
          return;
        }
        const [{ startService }, { untilSignalled }] = await Promise.all([
          import('../../service/start-service.ts'),
          import('../../service/until-signalled.ts'),
        ]);
        const service = await startService({ settings, dataDir: ctx.dataDir, env: ctx.io.env, now: ctx.io.now, stdout: ctx.io.stdout });
        await untilSignalled(service);
        // A worker's IPC channel to the primary would keep it alive after its server closed.
        if (cluster.isWorker) cluster.worker!.disconnect();
      }),
    );
}
