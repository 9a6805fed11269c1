import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { BackgroundHealth } from '../util/background-read.ts';
import type { ReleaseHealth } from './release-health.ts';

/** What the metrics read when they are scraped: the served release and the registry's connections. */
export interface MetricsSources {
  release: () => { health: ReleaseHealth; generatedAt: string | null };
  pool: () => { inUse: number; waiting: number };
  /** The other reads of the bucket done in the background (the catalogue's history, the release pages). */
  background?: () => BackgroundHealth[];
  /** The newest registry backup the bucket holds (`tariff registry backup`): null when none, undefined before it was read. */
  registryBackup?: () => { createdAt: string; size: number } | null | undefined;
  now: () => Date;
}

/** The log events that say the bucket could not be read, by what was being read. */
const BUCKET_FAILURES: Record<string, string> = {
  'release.refresh_failed': 'manifest',
  'release.refresh_hung': 'manifest',
  'release.file_corrupt': 'file',
  'signing_keys.unreadable': 'keys',
  'history.read_failed': 'history',
};

const seconds = (from: string, to: Date) => (to.getTime() - Date.parse(from)) / 1000;

/**
 * A gauge without labels holds 0 once reset (prom-client's way): one with nothing to say must be
 * absent instead, or an alert reads "0 seconds left" or "fresh" where there is no value at all.
 */
function setOrAbsent(gauge: Gauge, value: number | null): void {
  if (value === null) gauge.remove();
  else gauge.set(value);
}

/**
 * The service's Prometheus metrics (docs/operations.md, "Metrics"), in a registry of its own. The
 * counters are told as things happen; the release's and the registry pool's gauges are read when
 * scraped. Each gauge says how workers' values combine (`aggregator`) when `--workers` > 1: the
 * primary sums counters and takes the worst of the gauges.
 */
export class ServiceMetrics {
  readonly registry = new Registry();
  private readonly requests: Counter<'route' | 'method' | 'status'>;
  private readonly latency: Histogram<'route'>;
  private readonly reads: Counter;
  private readonly refusals: Counter<'counter'>;
  private readonly downloads: Counter<'format' | 'status'>;
  private readonly bytes: Counter<'format'>;
  private readonly bucketFailures: Counter<'what'>;
  private readonly accessRefusals: Counter<'purpose' | 'reason'>;
  private readonly unavailableAnswers: Counter<'condition'>;

  constructor(sources: MetricsSources) {
    const registers = [this.registry];
    const counter = <L extends string>(name: string, help: string, labelNames: L[] = []) =>
      new Counter<L>({ name, help, labelNames, registers });
    this.requests = counter('tariff_http_requests_total', 'Requests answered, by route (as the router names it), method and status.', [
      'route',
      'method',
      'status',
    ]);
    this.latency = new Histogram({
      name: 'tariff_http_request_duration_seconds',
      help: 'Time from the request to the end of the answer, by route.',
      labelNames: ['route'],
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });
    this.reads = counter('tariff_reads_spent_total', 'Reads taken from accounts’ daily quota.');
    this.refusals = counter(
      'tariff_quota_refusals_total',
      'Requests refused with 429 because a quota was spent, by counter (read, submit).',
      ['counter'],
    );
    this.downloads = counter(
      'tariff_downloads_total',
      'Dataset downloads answered, by format and status (200 with the file, 304 not modified).',
      ['format', 'status'],
    );
    this.bytes = counter('tariff_download_bytes_total', 'Bytes of dataset files answered with 200, by format.', ['format']);
    this.bucketFailures = counter(
      'tariff_bucket_read_failures_total',
      'Failed reads of the bucket, by what was read (manifest, file, keys, history).',
      ['what'],
    );
    this.accessRefusals = counter(
      'tariff_access_refused_total',
      'Sign-in, sign-up and catalogue requests refused, by purpose and reason.',
      ['purpose', 'reason'],
    );
    this.unavailableAnswers = counter(
      'tariff_unavailable_total',
      'Requests answered 503 service_unavailable, by the fault (database_unreachable, database_full, disk_full, permission_denied …).',
      ['condition'],
    );
    this.releaseGauges(sources, registers);
    new Gauge({
      name: 'tariff_background_read_stale',
      help: '1 when a read of the bucket done in the background (history, release pages) has not succeeded for longer than allowed: the pages show older data.',
      labelNames: ['read'],
      aggregator: 'max',
      registers,
      collect() {
        this.reset();
        for (const read of sources.background?.() ?? []) this.set({ read: read.read }, read.stale ? 1 : 0);
      },
    });
    new Gauge({
      name: 'tariff_registry_backup_age_seconds',
      help: "Seconds since the newest registry backup in the bucket's backups/registry/ was taken (absent when there is none).",
      aggregator: 'min',
      registers,
      collect() {
        const backup = sources.registryBackup?.();
        setOrAbsent(this, backup ? seconds(backup.createdAt, sources.now()) : null);
      },
    });
    new Gauge({
      name: 'tariff_registry_backup_bytes',
      help: 'Size of the newest registry backup in the bucket, compressed (absent when there is none).',
      aggregator: 'max',
      registers,
      collect() {
        const backup = sources.registryBackup?.();
        setOrAbsent(this, backup ? backup.size : null);
      },
    });
    new Gauge({
      name: 'tariff_registry_pool_connections',
      help: 'Connections of the registry in use, and requests waiting for one.',
      labelNames: ['state'],
      registers,
      collect() {
        const use = sources.pool();
        this.set({ state: 'in_use' }, use.inUse);
        this.set({ state: 'waiting' }, use.waiting);
      },
    });
  }

  private releaseGauges(sources: MetricsSources, registers: Registry[]): void {
    new Gauge({
      name: 'tariff_release_info',
      help: 'The version of the release served (1); none before a release is served.',
      labelNames: ['version'],
      aggregator: 'max',
      registers,
      collect() {
        this.reset();
        const version = sources.release().health.release;
        if (version) this.set({ version }, 1);
      },
    });
    new Gauge({
      name: 'tariff_release_age_seconds',
      help: 'Seconds since the release served was built (its manifest generatedAt).',
      aggregator: 'max',
      registers,
      collect() {
        const { generatedAt } = sources.release();
        setOrAbsent(this, generatedAt ? seconds(generatedAt, sources.now()) : null);
      },
    });
    new Gauge({
      name: 'tariff_release_refresh_age_seconds',
      help: "Seconds since the bucket's current manifest was last read and is what is served (the stale clock of /healthz).",
      aggregator: 'max',
      registers,
      collect() {
        // Nothing served, nothing to be stale about: absent (the stale gauge says whether the bucket is followed).
        const { lastRefreshAt, release } = sources.release().health;
        setOrAbsent(this, lastRefreshAt && release ? seconds(lastRefreshAt, sources.now()) : null);
      },
    });
    new Gauge({
      name: 'tariff_release_stale',
      help: '1 when /healthz says stale (503): the bucket not followed for longer than allowed, or the manifest expired.',
      aggregator: 'max',
      registers,
      collect() {
        this.set(sources.release().health.status === 'stale' ? 1 : 0);
      },
    });
    new Gauge({
      name: 'tariff_manifest_signature_expires_in_seconds',
      help: "Seconds until the served manifest's signature expires (absent when it is unsigned).",
      aggregator: 'min',
      registers,
      collect() {
        const { expires } = sources.release().health;
        setOrAbsent(this, expires ? -seconds(expires, sources.now()) : null);
      },
    });
  }

  request(route: string, method: string, status: number, durationSeconds: number): void {
    this.requests.inc({ route, method, status: String(status) });
    this.latency.observe({ route }, durationSeconds);
  }

  readSpent(): void {
    this.reads.inc();
  }

  quotaRefused(counter: 'read' | 'submit'): void {
    this.refusals.inc({ counter });
  }

  download(format: string, status: 200 | 304, bytes: number): void {
    this.downloads.inc({ format, status: String(status) });
    if (bytes > 0) this.bytes.inc({ format }, bytes);
  }

  unavailable(condition: string): void {
    this.unavailableAnswers.inc({ condition });
  }

  accessRefused(purpose: string, reason: string): void {
    this.accessRefusals.inc({ purpose, reason });
  }

  /** Counts what the service logs that a counter follows (the bucket's read failures). */
  observeEvent(event: Record<string, unknown>): void {
    const what = typeof event.event === 'string' ? BUCKET_FAILURES[event.event] : undefined;
    if (what) this.bucketFailures.inc({ what });
  }
}
