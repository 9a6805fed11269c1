import { join } from 'node:path';
import { readLatestBackup } from '../registry/backup/latest-backup.ts';
import type { BackupRecord } from '../registry/backup/backup-record.ts';
import type { Settings } from '../config/settings.ts';
import { BackgroundRead, type BackgroundHealth } from '../util/background-read.ts';
import { loadRules } from '../barcodes/load-rules.ts';
import { createMailer } from '../mail/mailer.ts';
import { openRegistry } from '../registry/open-registry.ts';
import type { Bucket } from '../storage/bucket.ts';
import { openBucket } from '../storage/open-bucket.ts';
import { checkBucketFormat } from '../storage/bucket-format.ts';
import { TariffError } from '../errors.ts';
import { createWebsite } from '../web/website.ts';
import { createApp, isApiPath } from '../server/app.ts';
import { CurrentRelease } from '../server/current-release.ts';
import type { Handler } from '../server/http.ts';
import { listen, type ListeningServer, serverLimits } from '../server/node-adapter.ts';
import { startPurgeLoop } from '../server/purge-loop.ts';
import { ReleaseHistory } from '../web/releases/release-history.ts';
import { CatalogueSource } from '../web/catalogue/catalogue-source.ts';
import { RequestLog } from '../server/request-log.ts';
import { ServiceMetrics } from '../server/service-metrics.ts';
import { checkMetricsSettings, exposeMetrics } from './metrics-listener.ts';

export interface ServiceOptions {
  settings: Settings;
  dataDir: string;
  /** The SDK's variables for an S3 bucket (credentials, endpoint), from the environment at the edge. */
  env: NodeJS.ProcessEnv;
  now: () => Date;
  /** Where the request log goes, one JSON line a request. */
  stdout: NodeJS.WritableStream;
  /** The bucket to serve; by default the one the settings name. */
  bucket?: Bucket;
}

/**
 * A service listening: `stop()` (once, however often called) closes it after the requests under
 * way, the mail being sent and the registry.
 */
export interface RunningService {
  listening: ListeningServer;
  /** The metrics listener, when metricsPort is set (not in a worker: the primary listens). */
  metrics: ListeningServer | null;
  stop: () => Promise<void>;
}

/**
 * Starts the service (the /v1 API and the website, on one router each, behind one port) and
 * resolves once it listens. What stops it is the caller's: the CLI stops it on SIGINT or SIGTERM
 * (`untilSignalled`), a test when it is done.
 */
export async function startService(options: ServiceOptions): Promise<RunningService> {
  checkMetricsSettings(options.settings);
  const log = new RequestLog(options.stdout);
  // What has started, closed in reverse order: on stop, and also when starting fails halfway (a
  // port in use must not leave the registry's pool or a timer holding the process).
  const closers: (() => Promise<void> | void)[] = [];
  const closeAll = async () => {
    for (const close of closers.splice(0).reverse()) await close();
  };
  let listening: ListeningServer;
  let metricsListening: ListeningServer | null;
  try {
    ({ listening, metricsListening } = await startParts(options, log, (close) => closers.push(close)));
  } catch (error) {
    await closeAll().catch(() => {});
    throw error;
  }
  let stopping: Promise<void> | null = null;
  const stop = () =>
    (stopping ??= (async () => {
      await closeAll();
      log.write({ event: 'service.stopped' });
      log.flush();
    })());
  return { listening, metrics: metricsListening, stop };
}

/** Starts each part in turn, telling `started` how to close it as soon as it runs. */
async function startParts(
  options: ServiceOptions,
  log: RequestLog,
  started: (close: () => Promise<void> | void) => void,
): Promise<{ listening: ListeningServer; metricsListening: ListeningServer | null }> {
  const { settings, dataDir } = options;
  // Counted only when scraped somewhere: with metrics off, requests pay nothing for them. The
  // gauges read `release` and `registry` (made below) at each scrape, which comes after they exist.
  const metrics =
    settings.metricsPort === undefined
      ? undefined
      : new ServiceMetrics({
          release: () => ({ health: release.health(), generatedAt: release.current?.manifest.generatedAt ?? null }),
          pool: () => registry.poolUse(),
          background: () => background(),
          registryBackup: () => backups?.value(),
          now: options.now,
        });
  // Read at each scrape, once the reads exist (below).
  let background: () => BackgroundHealth[] = () => [];
  const write = (event: Record<string, unknown>) => {
    metrics?.observeEvent(event);
    log.write(event);
  };
  const bucket = options.bucket ?? (await openBucket(settings.bucket, { dataDir, settings, env: options.env }));
  await refuseNewerFormat(bucket);
  const registry = await openRegistry({
    dataDir,
    url: settings.registry,
    poolSize: settings.pgPoolSize,
    longRunning: true,
    rules: loadRules(settings),
  });
  started(() => registry.close());
  const release = new CurrentRelease(bucket, {
    pollMs: settings.manifestPollMs,
    cacheBytes: settings.cacheBytes,
    staleAfterMs: settings.staleAfterSeconds * 1000,
    baseUrl: settings.baseUrl,
    log: write,
    now: options.now,
  });
  started(() => release.stop());
  await release.start();
  const purge = startPurgeLoop(registry, {
    intervalMs: settings.purgeIntervalSeconds * 1000,
    batch: 1000,
    maxBatches: 20,
    now: options.now,
    log: write,
  });
  started(() => purge.stop());
  const catalogue = new CatalogueSource(bucket, {
    served: () => release.current?.manifest.version ?? null,
    refreshMs: settings.historyRefreshSeconds * 1000,
    // The bucket's own bound on one call: a read past it has failed, whatever the bucket.
    deadlineMs: settings.s3DeadlineSeconds * 1000,
    cacheDir: join(dataDir, 'cache'),
    log: write,
    now: () => options.now().getTime(),
  });
  const releasePages = new ReleaseHistory(bucket, {
    depth: settings.historyDepth,
    refreshMs: settings.historyRefreshSeconds * 1000,
    deadlineMs: settings.s3DeadlineSeconds * 1000,
    log: write,
    now: () => options.now().getTime(),
  });
  // The newest registry backup, for its age on /metrics: read in the background when scraped, never by a request.
  const backups: BackgroundRead<BackupRecord | null> | undefined = metrics
    ? new BackgroundRead('registry backup', () => readLatestBackup(bucket), {
        refreshMs: settings.historyRefreshSeconds * 1000,
        deadlineMs: settings.s3DeadlineSeconds * 1000,
        log: write,
        now: () => options.now().getTime(),
        failureEvent: 'registry_backup.read_failed',
      })
    : undefined;
  const staleAfterMs = settings.staleAfterSeconds * 1000;
  background = () => [catalogue.health(staleAfterMs), releasePages.health(staleAfterMs)];
  const api = createApp({ registry, release, now: options.now, metrics, background });
  // Links in e-mails point at the site URL (the public https address behind a load balancer),
  // else at the address this process listens on.
  const host = settings.host.includes(':') ? `[${settings.host}]` : settings.host;
  let siteUrl = settings.siteUrl ?? `http://${host}:${settings.port}`;
  const website = createWebsite({
    registry,
    mailer: createMailer({ smtpUrl: settings.smtpUrl, from: settings.smtpFrom, dataDir, log: write }),
    now: options.now,
    siteUrl: () => siteUrl,
    signInTtlMs: settings.signInTtlSeconds * 1000,
    sessionTtlMs: settings.sessionTtlSeconds * 1000,
    limits: { perAddress: settings.signInLimitAddress, perClient: settings.signInLimitClient },
    trustProxy: settings.trustProxy,
    log: write,
    signUp: { open: settings.signUp === 'open', approvalTypes: settings.signUpApproval },
    tariffHas: (admCode) => release.current?.admCodes.has(admCode) ?? false,
    signingKeys: () => release.signingKeys,
    metrics,
    history: releasePages,
    catalogue: { index: () => catalogue.index(), perClientPerMinute: settings.publicPagesPerMinute },
  });
  // The mail being sent, and what the pages deferred, end before the registry closes.
  started(() => website.settled());
  // /v1, /healthz and /openapi.json are the API; every other path is the website.
  const handler: Handler = (request) => (isApiPath(request.path) ? api(request) : website(request));
  const listening = await listen(handler, {
    host: settings.host,
    port: settings.port,
    log,
    limits: serverLimits(settings),
    observe: metrics && ((route, method, status, seconds) => metrics.request(route, method, status, seconds)),
    unavailable: metrics && ((condition) => metrics.unavailable(condition)),
    debug: options.env.TARIFF_DEBUG === '1',
  });
  started(() => listening.close());
  const metricsListening = metrics ? await exposeMetrics(metrics.registry, settings, log) : null;
  if (metricsListening) started(() => metricsListening.close());
  if (!settings.siteUrl) siteUrl = listening.reachableUrl;
  // Without TARIFF_BASE_URL, the manifest names this service's own address: a client following it reaches the files.
  if (!settings.baseUrl) release.advertise(`${listening.reachableUrl}/v1`);
  log.write({
    event: 'service.listening',
    url: listening.url,
    bucket: bucket.description,
    release: release.current?.manifest.version ?? null,
  });
  log.flush();
  return { listening, metricsListening };
}

/**
 * A bucket of a format this version cannot read stops the service before it listens, by name
 * (`bucket_format_newer`): serving nothing with exit 0 would hide it. A bucket that does not
 * answer is not refused here: the release's refresh retries it, as it always has.
 */
async function refuseNewerFormat(bucket: Bucket): Promise<void> {
  await checkBucketFormat(bucket, 'read').catch((error: unknown) => {
    if (error instanceof TariffError && (error.code === 'bucket_format_newer' || error.code === 'bucket_format_unreadable')) throw error;
  });
}
