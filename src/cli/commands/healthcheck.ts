import type { Command } from 'commander';
import { errors } from '../../errors.ts';
import type { Runner } from '../context.ts';

/** How long the check waits for an answer: a service that does not answer in this time is not healthy. */
const TIMEOUT_MS = 5_000;

export function registerHealthcheck(program: Command, run: Runner): void {
  program
    .command('healthcheck')
    .description("Ask a running service's /healthz, for a container's health check (the image has no curl): exit 0 when it answers 200")
    .option('--url <url>', 'the /healthz to ask (default http://127.0.0.1:<TARIFF_PORT, 8080>/healthz)')
    .addHelpText(
      'after',
      '\nPrints nothing when healthy; the reason on stderr and exit 1 otherwise.\n\nExample:\n  podman run --health-cmd \'["/opt/tariff/bin/node","/opt/tariff/bin/tariff","healthcheck"]\' localhost/tariff',
    )
    .action(
      run(async (ctx, options: { url?: string }) => {
        const settings = await ctx.settings();
        const url = options.url ?? `http://127.0.0.1:${settings.port}/healthz`;
        const response = await fetch(url, { signal: AbortSignal.timeout(TIMEOUT_MS) }).catch((error: Error) => {
          const cause = (error.cause as { code?: string } | undefined)?.code;
          throw errors.healthcheckFailed(
            url,
            error.name === 'TimeoutError' ? `no answer within ${TIMEOUT_MS / 1000} s` : (cause ?? error.message),
          );
        });
        await response.arrayBuffer();
        if (response.status !== 200) throw errors.healthcheckFailed(url, `it answered ${response.status}`);
      }),
    );
}
