import { pipeline, type Readable } from 'node:stream';
import { isTariffError } from '../errors.ts';
import { releaseFileKey } from '../publish/bucket-layout.ts';
import { compareVersions } from '../release/release-version.ts';
import { checkBucketFormat } from '../storage/bucket-format.ts';
import { listReleases, readCurrentManifest, readReleaseManifest } from '../publish/bucket-releases.ts';
import { readAdmCodes } from '../release/dataset-sqlite.ts';
import { gunzip } from '../release/gzip.ts';
import { FORMATS, withBaseUrl, type Format, type Manifest } from '../release/manifest.ts';
import type { KeyList } from '../release/signing-keys.ts';
import { DEFAULT_STALE_AFTER_MS, releaseHealth, type ReleaseHealth } from './release-health.ts';
import { SigningKeyList } from './signing-key-list.ts';
import type { Bucket } from '../storage/bucket.ts';
import { cachedFiles } from './cached-files.ts';
import { verifyingStream } from './verifying-stream.ts';

/** A corrupt current release is checked again after this long (it may have been repaired in place). */
const RECHECK_REJECTED_MS = 60_000;

/** What tells two manifests apart: version, build time, the files' digests, and the signature (a re-signed manifest is served anew). */
const identity = (manifest: Manifest) =>
  `${manifest.version} ${manifest.generatedAt} ${FORMATS.map((format) => manifest.files[format].sha256).join(' ')} ${manifest.signature?.value ?? ''}`;

export interface ServedRelease {
  manifest: Manifest;
  /** The manifest as /v1/version sends it, serialised once. */
  manifestBody: Buffer;
  /** The tariff codes of the release: submissions must name one of them. */
  admCodes: ReadonlySet<number>;
}

export interface ReleaseFile {
  version: string;
  sha256: string;
  size: number;
  /** The bytes from the cache, or a stream from the bucket when the file is not cached. */
  body: Buffer | Readable;
}

export interface CurrentReleaseOptions {
  pollMs: number;
  /**
   * When set, the served manifest's file URLs point here (`<baseUrl>/dataset.<fmt>.gz`); the
   * service sets it to where it listens when TARIFF_BASE_URL is not set (`advertise`).
   */
  baseUrl?: string;
  cacheBytes: number;
  /** /healthz says stale when the last good refresh is older than this (a hung read counts, not only a failed one). */
  staleAfterMs?: number;
  log: (event: Record<string, unknown>) => void;
  now?: () => Date;
}

/**
 * What the service serves: the bucket's current manifest, polled every `pollMs` (the staleness
 * bound after a publish), and the files of that release, cached in memory when they fit in
 * `cacheBytes` (checked against the manifest's SHA-256 before the release is served), streamed
 * from the bucket otherwise (checked by streaming before the switch, and hashed again while each
 * download streams). A request takes the release once and is served from that release's immutable
 * files to the end, so a switch never mixes two releases. A current release whose files do not
 * match its manifest is never served: the previous one stays, and a service starting with nothing
 * serves the newest kept release that verifies, logged as an error.
 */
export class CurrentRelease {
  private served: ServedRelease | null = null;
  private cache = new Map<Format, Buffer>();
  private timer: NodeJS.Timeout | null = null;
  private refreshing: Promise<void> | null = null;
  private refreshStartedAt = 0;
  private lastRefreshAt: Date | null = null;
  private failingSince: Date | null = null;
  private problem: string | null = null;
  private fallback = false;
  private rejected: { key: string; at: number } | null = null;
  /** Each read of the bucket is numbered as it starts; the served manifest came from read `servedRead`. */
  private reads = 0;
  private servedRead = 0;
  private readonly keyList: SigningKeyList;

  /** Before the first good refresh, staleness counts from here. */
  private readonly createdAt: Date;

  private readonly bucket: Bucket;
  private options: CurrentReleaseOptions;

  constructor(bucket: Bucket, options: CurrentReleaseOptions) {
    this.bucket = bucket;
    this.options = options;
    this.createdAt = this.now();
    this.keyList = new SigningKeyList(options.log);
  }

  private now(): Date {
    return this.options.now?.() ?? new Date();
  }

  /** The first read of the bucket: a bucket that cannot be read (missing, refused) fails the start. */
  async start(): Promise<void> {
    const error = await this.load();
    if (isTariffError(error, 'bucket_failed')) throw error;
    this.timer = setInterval(() => void this.refresh(), this.options.pollMs);
    this.timer.unref();
  }

  /** For /healthz: whether the served release still follows the bucket, and since when it does not. */
  health(): ReleaseHealth {
    const manifest = this.served?.manifest;
    return releaseHealth({
      now: this.now(),
      staleAfterMs: this.options.staleAfterMs ?? DEFAULT_STALE_AFTER_MS,
      lastRefreshAt: this.lastRefreshAt,
      createdAt: this.createdAt,
      failingSince: this.failingSince,
      problem: this.problem,
      fallback: this.fallback,
      served: manifest ? { version: manifest.version, expires: manifest.expires ?? null } : null,
    });
  }

  /** The bucket's public signing keys as /.well-known/tariff-keys.json serves them (read with each refresh). */
  get keys(): Buffer {
    return this.keyList.body;
  }

  /** The same keys, for the website's page of them. */
  get signingKeys(): KeyList {
    return this.keyList.list;
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  get current(): ServedRelease | null {
    return this.served;
  }

  /**
   * Reads the bucket's current manifest and switches to it when it changed. Never throws. A call
   * still under way after several poll intervals is abandoned (and logged), so one hung request
   * never stops the polling.
   */
  refresh(): Promise<void> {
    const hungAfter = Math.max(4 * this.options.pollMs, 120_000);
    if (this.refreshing && this.now().getTime() - this.refreshStartedAt > hungAfter) {
      this.options.log({ event: 'release.refresh_hung', startedAt: new Date(this.refreshStartedAt).toISOString() });
      this.refreshing = null;
    }
    if (!this.refreshing) {
      this.refreshStartedAt = this.now().getTime();
      const attempt: Promise<void> = this.load()
        .then(() => {})
        .finally(() => {
          if (this.refreshing === attempt) this.refreshing = null;
        });
      this.refreshing = attempt;
    }
    return this.refreshing;
  }

  /**
   * One refresh; returns the error it met (already logged), or null. A read that started before
   * the one the served manifest came from is older news, whenever it ends (an abandoned hung read
   * ends late): it never switches the service back.
   */
  private async load(): Promise<unknown> {
    const read = (this.reads += 1);
    try {
      // The format first: a bucket a newer tariff rewrote is read no further, and the release served stays.
      await checkBucketFormat(this.bucket, 'read');
      const [manifest] = await Promise.all([readCurrentManifest(this.bucket), this.keyList.refresh(this.bucket)]);
      if (read < this.servedRead) return this.superseded(read, manifest);
      if (!manifest) return this.succeeded();
      const key = identity(manifest);
      if (this.served && key === identity(this.served.manifest) && !this.fallback) {
        this.servedRead = read;
        return this.succeeded();
      }
      if (this.rejected?.key === key && Date.now() - this.rejected.at < RECHECK_REJECTED_MS)
        throw new Error(this.problem ?? `${manifest.version} does not verify`);
      try {
        if (!(await this.switchTo(manifest, read))) return this.superseded(read, manifest);
        this.fallback = false;
        this.rejected = null;
        return this.succeeded();
      } catch (error) {
        this.rejected = { key, at: Date.now() };
        if (!this.served || this.fallback) await this.fallBack(manifest, (error as Error).message, read);
        throw error;
      }
    } catch (error) {
      this.failingSince ??= this.now();
      this.problem = (error as Error).message;
      this.options.log({ event: 'release.refresh_failed', error: this.problem, since: this.failingSince.toISOString() });
      return error;
    }
  }

  private superseded(read: number, manifest: Manifest | null): null {
    this.options.log({ event: 'release.refresh_superseded', read, servedRead: this.servedRead, version: manifest?.version ?? null });
    return null;
  }

  private succeeded(): null {
    this.lastRefreshAt = this.now();
    this.failingSince = null;
    this.problem = null;
    return null;
  }

  /**
   * Where the served manifest's files are downloaded from from now on: the address the service
   * listens on, known once it listens (a port of 0 is chosen then), when no base URL was set.
   */
  advertise(baseUrl: string): void {
    this.options = { ...this.options, baseUrl };
    if (this.served) this.served = { ...this.served, manifestBody: this.manifestBody(this.served.manifest) };
  }

  private manifestBody(manifest: Manifest): Buffer {
    return Buffer.from(JSON.stringify(withBaseUrl(this.options.baseUrl, manifest)));
  }

  /** Loads the release's files and serves it, unless a later read switched meanwhile (false). */
  private async switchTo(manifest: Manifest, read: number): Promise<boolean> {
    const cache = await cachedFiles(this.bucket, manifest, this.options.cacheBytes);
    // The codes from the sqlite file, read in place: parsing every row of the json file only for
    // them would leave the service's heap grown by all the rows (docs/architecture.md, "Memory and start-up").
    const sqlite = cache.get('sqlite') ?? (await this.bucket.get(releaseFileKey(manifest.version, 'sqlite')));
    if (!sqlite) throw new Error(`${releaseFileKey(manifest.version, 'sqlite')} is missing`);
    const admCodes = readAdmCodes(gunzip(sqlite));
    if (read < this.servedRead) return false;
    this.servedRead = read;
    this.cache = cache;
    this.served = { manifest, manifestBody: this.manifestBody(manifest), admCodes };
    this.options.log({ event: 'release.switch', version: manifest.version, sequence: manifest.sequence ?? null, cachedFiles: cache.size });
    return true;
  }

  /** With nothing good to serve, the newest kept release whose files verify; loudly. */
  private async fallBack(current: Manifest, problem: string, read: number): Promise<void> {
    const { versions } = await listReleases(this.bucket);
    for (const version of versions
      .filter((v) => v !== current.version)
      .sort(compareVersions)
      .reverse()) {
      if (this.fallback && this.served?.manifest.version === version) return;
      const manifest = await readReleaseManifest(this.bucket, version).catch(() => null);
      if (!manifest) continue;
      try {
        if (!(await this.switchTo(manifest, read))) return;
      } catch {
        continue;
      }
      this.fallback = true;
      this.options.log({ event: 'release.fallback', level: 'error', current: current.version, serving: version, problem });
      return;
    }
  }

  /** The file of `release` (the one the request started with), or null if the bucket lost it. */
  async file(release: ServedRelease, format: Format): Promise<ReleaseFile | null> {
    const entry = release.manifest.files[format];
    const base = { version: release.manifest.version, sha256: entry.sha256, size: entry.size };
    const cached = this.served === release ? this.cache.get(format) : undefined;
    if (cached) return { ...base, body: cached };
    const key = releaseFileKey(release.manifest.version, format);
    const object = await this.bucket.open(key);
    if (!object) return null;
    // The size is known before any header is sent: a file of another size is answered 503, not cut short under a 200.
    if (object.size !== entry.size) {
      object.body.destroy();
      this.options.log({ event: 'release.file_corrupt', key, size: object.size, expected: entry.size });
      return null;
    }
    // pipeline, not pipe: a bucket stream that breaks must break the download too.
    return { ...base, body: pipeline(object.body, verifyingStream(key, entry, this.options.log), () => {}) };
  }
}
