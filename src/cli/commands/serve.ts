import cluster from 'node:cluster';
import type { Command } from 'commander';
import { positiveInteger, readConfigFile } from '../../config/load-settings.ts';
import { errors } from '../../errors.ts';
import { loadRules } from '../../barcodes/load-rules.ts';
import { openRegistry } from '../../registry/open-registry.ts';
import { createApp, isApiPath } from '../../server/app.ts';
import type { Handler } from '../../server/http.ts';
import { createMailer } from '../../mail/mailer.ts';
import {
  createWebsite,
  DEFAULT_SESSION_TTL_MS,
  DEFAULT_SIGN_IN_LIMITS,
  DEFAULT_SIGN_IN_TTL_MS,
  DEFAULT_SIGN_UP_POLICY,
  type SignUpPolicy,
} from '../../web/website.ts';
import { ACCOUNT_TYPES, type AccountType } from '../../registry/registry.ts';
import { DEFAULT_HISTORY_DEPTH, DEFAULT_HISTORY_REFRESH_MS, ReleaseHistory } from '../../server/release-history.ts';
import { CurrentRelease, DEFAULT_CACHE_BYTES, DEFAULT_STALE_AFTER_MS, DEFAULT_POLL_MS } from '../../server/current-release.ts';
import { DEFAULT_PURGE_INTERVAL_MS, startPurgeLoop } from '../../server/purge-loop.ts';
import { DEFAULT_SERVER_LIMITS, listen, type ListeningServer, type ServerLimits } from '../../server/node-adapter.ts';
import { RequestLog } from '../../server/request-log.ts';
import { openBucket } from '../../storage/open-bucket.ts';
import type { CommandContext, Runner } from '../context.ts';

export interface ServeOptions {
  host?: string;
  port?: string;
  bucket?: string;
  baseUrl?: string;
  workers?: string;
}

/** Starts the service and resolves once it listens; `stopped` resolves when a signal ended it. */
export async function startService(
  ctx: CommandContext,
  options: ServeOptions,
): Promise<{ listening: ListeningServer; stopped: Promise<void> }> {
  const env = ctx.io.env;
  const config = await readConfigFile(ctx.dataDir);
  const host = options.host ?? env.TARIFF_HOST ?? '127.0.0.1';
  const port = options.port ?? env.TARIFF_PORT ?? '8080';
  if (!/^\d{1,5}$/.test(port) || Number(port) > 65535) throw errors.usage(`--port ${port} is not a port number`);
  const baseUrl = options.baseUrl ?? env.TARIFF_BASE_URL ?? config.baseUrl;
  const log = new RequestLog(ctx.io.stdout);

  const bucket = await openBucket(options.bucket ?? env.TARIFF_BUCKET ?? config.bucket, { dataDir: ctx.dataDir, env });
  const registry = await openRegistry({ dataDir: ctx.dataDir, env });
  const release = new CurrentRelease(bucket, {
    pollMs: positiveInteger(env.TARIFF_MANIFEST_POLL_MS, 'TARIFF_MANIFEST_POLL_MS') ?? DEFAULT_POLL_MS,
    cacheBytes: positiveInteger(env.TARIFF_CACHE_BYTES, 'TARIFF_CACHE_BYTES') ?? DEFAULT_CACHE_BYTES,
    staleAfterMs: (positiveInteger(env.TARIFF_STALE_AFTER_SECONDS, 'TARIFF_STALE_AFTER_SECONDS') ?? DEFAULT_STALE_AFTER_MS / 1000) * 1000,
    baseUrl,
    log: (event) => log.write(event),
  });
  await release.start();
  const purge = startPurgeLoop(registry, {
    intervalMs:
      (positiveInteger(env.TARIFF_PURGE_INTERVAL_SECONDS, 'TARIFF_PURGE_INTERVAL_SECONDS') ?? DEFAULT_PURGE_INTERVAL_MS / 1000) * 1000,
    batch: 1000,
    maxBatches: 20,
    now: ctx.io.now,
    log: (event) => log.write(event),
  });
  const api = createApp({ registry, release, now: ctx.io.now, rules: loadRules(env) });
  // Links in e-mails point at TARIFF_SITE_URL (the public https address behind a load balancer),
  // else at the address this process listens on.
  let siteUrl = env.TARIFF_SITE_URL ?? `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  const website = createWebsite({
    registry,
    mailer: createMailer({ env, dataDir: ctx.dataDir, log: (event) => log.write(event) }),
    now: ctx.io.now,
    siteUrl: () => siteUrl,
    signInTtlMs: (positiveInteger(env.TARIFF_SIGNIN_TTL_SECONDS, 'TARIFF_SIGNIN_TTL_SECONDS') ?? DEFAULT_SIGN_IN_TTL_MS / 1000) * 1000,
    sessionTtlMs: (positiveInteger(env.TARIFF_SESSION_TTL_SECONDS, 'TARIFF_SESSION_TTL_SECONDS') ?? DEFAULT_SESSION_TTL_MS / 1000) * 1000,
    limits: {
      perAddress: positiveInteger(env.TARIFF_SIGNIN_LIMIT_ADDRESS, 'TARIFF_SIGNIN_LIMIT_ADDRESS') ?? DEFAULT_SIGN_IN_LIMITS.perAddress,
      perClient: positiveInteger(env.TARIFF_SIGNIN_LIMIT_CLIENT, 'TARIFF_SIGNIN_LIMIT_CLIENT') ?? DEFAULT_SIGN_IN_LIMITS.perClient,
    },
    trustProxy: trustedHops(env.TARIFF_TRUST_PROXY),
    log: (event) => log.write(event),
    signUp: signUpPolicy(env),
    rules: loadRules(env),
    history: new ReleaseHistory(bucket, {
      depth: positiveInteger(env.TARIFF_HISTORY_DEPTH, 'TARIFF_HISTORY_DEPTH') ?? DEFAULT_HISTORY_DEPTH,
      refreshMs:
        (positiveInteger(env.TARIFF_HISTORY_REFRESH_SECONDS, 'TARIFF_HISTORY_REFRESH_SECONDS') ?? DEFAULT_HISTORY_REFRESH_MS / 1000) * 1000,
      log: (event) => log.write(event),
    }),
  });
  // /v1, /healthz and /openapi.json are the API; every other path is the website.
  const handler: Handler = (request) => (isApiPath(request.path) ? api(request) : website(request));
  const listening = await listen(handler, { host, port: Number(port), log, limits: serverLimits(env) });
  if (!env.TARIFF_SITE_URL) siteUrl = listening.url;
  log.write({
    event: 'service.listening',
    url: listening.url,
    bucket: bucket.description,
    release: release.current?.manifest.version ?? null,
  });
  log.flush();

  const stopped = new Promise<void>((resolve) => {
    const stop = async () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      release.stop();
      await listening.close();
      await purge.stop();
      await website.settled();
      await registry.close();
      log.write({ event: 'service.stopped' });
      log.flush();
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  return { listening, stopped };
}

/** The HTTP server's timeouts and connection cap, from the environment (docs/operations.md). */
function serverLimits(env: NodeJS.ProcessEnv): ServerLimits {
  const ms = (name: string, fallback: number) => positiveInteger(env[name], name) ?? fallback;
  return {
    headersTimeoutMs: ms('TARIFF_HEADERS_TIMEOUT_MS', DEFAULT_SERVER_LIMITS.headersTimeoutMs),
    requestTimeoutMs: ms('TARIFF_REQUEST_TIMEOUT_MS', DEFAULT_SERVER_LIMITS.requestTimeoutMs),
    idleTimeoutMs: ms('TARIFF_IDLE_TIMEOUT_MS', DEFAULT_SERVER_LIMITS.idleTimeoutMs),
    keepAliveTimeoutMs: ms('TARIFF_KEEPALIVE_TIMEOUT_MS', DEFAULT_SERVER_LIMITS.keepAliveTimeoutMs),
    maxConnections: ms('TARIFF_MAX_CONNECTIONS', DEFAULT_SERVER_LIMITS.maxConnections),
  };
}

/** TARIFF_TRUST_PROXY: the number of proxies in front (`true` is one), or none. */
function trustedHops(value: string | undefined): number {
  if (value === undefined || value === '' || value === 'false' || value === '0') return 0;
  if (value === 'true') return 1;
  const hops = positiveInteger(value, 'TARIFF_TRUST_PROXY');
  return hops ?? 0;
}

export function registerServe(program: Command, run: Runner): void {
  program
    .command('serve')
    .description('Run the /v1 service: API keys, read quota, the manifest and the downloads, in front of the bucket')
    .option('--host <address>', 'address to listen on (env TARIFF_HOST)', undefined)
    .option('--port <port>', 'port to listen on, 0 for any free one (env TARIFF_PORT, default 8080)')
    .option('--bucket <uri>', 'bucket: s3://bucket/prefix or a folder (env TARIFF_BUCKET, default <data-dir>/bucket)')
    .option('--base-url <url>', "this service's public /v1 URL, written in the served manifest's file URLs (env TARIFF_BASE_URL)")
    .option('--workers <n>', 'processes sharing the port, e.g. the number of cores (env TARIFF_WORKERS, default 1)')
    .addHelpText(
      'after',
      '\nLogs one JSON line per request on stdout. Stops on SIGINT or SIGTERM.\n\nExample:\n  tariff serve --host 0.0.0.0 --port 8080 --bucket s3://tariff-releases/prod --base-url https://tariff.example.it/v1',
    )
    .action(
      run(async (ctx, options: ServeOptions) => {
        const workers = positiveInteger(options.workers ?? ctx.io.env.TARIFF_WORKERS, '--workers') ?? 1;
        if (workers > 1 && cluster.isPrimary) return superviseWorkers(ctx, workers);
        const { stopped } = await startService(ctx, options);
        await stopped;
        // A worker's IPC channel to the primary would keep it alive after its server closed.
        if (cluster.isWorker) cluster.worker!.disconnect();
      }),
    );
}

/**
 * Runs `workers` copies of the service sharing one port (node:cluster): one process per core.
 * They share the registry (SQLite serialises their writes, so quotas stay exact) and each polls
 * the bucket. A worker that dies is replaced; SIGINT/SIGTERM stop them all.
 */
async function superviseWorkers(ctx: CommandContext, workers: number): Promise<void> {
  const log = new RequestLog(ctx.io.stdout);
  let stopping = false;
  let announced = false;
  const fork = () => {
    const worker = cluster.fork();
    worker.on('listening', (address) => {
      if (announced) return;
      announced = true;
      log.write({ event: 'service.listening', url: `http://${address.address}:${address.port}`, workers });
      log.flush();
    });
  };
  for (let i = 0; i < workers; i++) fork();
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) return;
    log.write({ event: 'worker.exit', pid: worker.process.pid, code, signal });
    // A crash loop must not become a fork loop: wait a second before replacing the worker.
    setTimeout(fork, 1_000).unref();
  });
  await new Promise<void>((resolve) => {
    const stop = () => {
      stopping = true;
      for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGTERM');
      const check = setInterval(() => {
        if (Object.keys(cluster.workers ?? {}).length === 0) {
          clearInterval(check);
          log.write({ event: 'service.stopped' });
          log.flush();
          resolve();
        }
      }, 50);
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}

/** TARIFF_SIGNUP (open or closed) and TARIFF_SIGNUP_APPROVAL (the account types an administrator approves: a comma list, or none). */
export function signUpPolicy(env: NodeJS.ProcessEnv): SignUpPolicy {
  const open = env.TARIFF_SIGNUP ?? 'open';
  if (open !== 'open' && open !== 'closed') throw errors.usage(`TARIFF_SIGNUP=${open} is neither open nor closed`);
  const listed = env.TARIFF_SIGNUP_APPROVAL;
  if (listed === undefined) return { ...DEFAULT_SIGN_UP_POLICY, open: open === 'open' };
  const types =
    listed.trim() === 'none'
      ? []
      : listed
          .split(',')
          .map((type) => type.trim())
          .filter(Boolean);
  const unknown = types.filter((type) => !(ACCOUNT_TYPES as readonly string[]).includes(type));
  if (unknown.length > 0)
    throw errors.usage(`TARIFF_SIGNUP_APPROVAL: ${unknown.join(', ')} is not an account type (${ACCOUNT_TYPES.join(', ')}, or none)`);
  return { open: open === 'open', approvalTypes: types as AccountType[] };
}
