import type { Readable } from 'node:stream';
import { releaseFileKey } from '../publish/bucket-layout.ts';
import { readCurrentManifest } from '../publish/publish-release.ts';
import { parseDatasetJson } from '../release/dataset-json.ts';
import { gunzip, sha256Hex } from '../release/gzip.ts';
import { FORMATS, type Format, type Manifest } from '../release/manifest.ts';
import type { Bucket } from '../storage/bucket.ts';

export const DEFAULT_POLL_MS = 5_000;
export const DEFAULT_CACHE_BYTES = 64 * 1024 * 1024;

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
  /** When set, the served manifest's file URLs point here (`<baseUrl>/dataset.<fmt>.gz`). */
  baseUrl?: string;
  cacheBytes: number;
  log: (event: Record<string, unknown>) => void;
}

/**
 * What the service serves: the bucket's current manifest, polled every `pollMs` (the staleness
 * bound after a publish), and the files of that release, cached in memory when they fit in
 * `cacheBytes` (checked against the manifest's SHA-256 before the release is served), streamed
 * from the bucket otherwise. A request takes the release once and is served from that release's
 * immutable files to the end, so a switch never mixes two releases.
 */
export class CurrentRelease {
  private served: ServedRelease | null = null;
  private cache = new Map<Format, Buffer>();
  private timer: NodeJS.Timeout | null = null;
  private refreshing: Promise<void> | null = null;

  constructor(
    private readonly bucket: Bucket,
    private readonly options: CurrentReleaseOptions,
  ) {}

  async start(): Promise<void> {
    await this.refresh();
    this.timer = setInterval(() => void this.refresh(), this.options.pollMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  get current(): ServedRelease | null {
    return this.served;
  }

  /** Reads the bucket's current manifest and switches to it when it changed. Never throws. */
  refresh(): Promise<void> {
    this.refreshing ??= this.load().finally(() => {
      this.refreshing = null;
    });
    return this.refreshing;
  }

  private async load(): Promise<void> {
    try {
      const manifest = await readCurrentManifest(this.bucket);
      if (!manifest || manifest.version === this.served?.manifest.version && manifest.generatedAt === this.served.manifest.generatedAt) return;
      const cache = await this.fill(manifest);
      const json = cache.get('json') ?? (await this.bucket.get(releaseFileKey(manifest.version, 'json')));
      if (!json) throw new Error(`${releaseFileKey(manifest.version, 'json')} is missing`);
      const admCodes = new Set(parseDatasetJson(gunzip(json)).products.map((product) => product.admCode));
      this.cache = cache;
      this.served = { manifest, manifestBody: Buffer.from(JSON.stringify(this.withBaseUrl(manifest))), admCodes };
      this.options.log({ event: 'release.switch', version: manifest.version, cachedFiles: cache.size });
    } catch (error) {
      this.options.log({ event: 'release.refresh_failed', error: (error as Error).message });
    }
  }

  private withBaseUrl(manifest: Manifest): Manifest {
    const base = this.options.baseUrl?.replace(/\/+$/, '');
    if (!base) return manifest;
    const files = structuredClone(manifest.files);
    for (const format of FORMATS) files[format].url = `${base}/dataset.${format}.gz`;
    return { ...manifest, files };
  }

  /** Loads and checks the files of a release when they fit in the cache; an empty cache means streaming. */
  private async fill(manifest: Manifest): Promise<Map<Format, Buffer>> {
    const cache = new Map<Format, Buffer>();
    const total = FORMATS.reduce((sum, format) => sum + manifest.files[format].size, 0);
    if (total > this.options.cacheBytes) return cache;
    for (const format of FORMATS) {
      const bytes = await this.bucket.get(releaseFileKey(manifest.version, format));
      if (!bytes || bytes.length !== manifest.files[format].size || sha256Hex(bytes) !== manifest.files[format].sha256) {
        throw new Error(`${releaseFileKey(manifest.version, format)} does not match the manifest; keeping the previous release`);
      }
      cache.set(format, bytes);
    }
    return cache;
  }

  /** The file of `release` (the one the request started with), or null if the bucket lost it. */
  async file(release: ServedRelease, format: Format): Promise<ReleaseFile | null> {
    const entry = release.manifest.files[format];
    const base = { version: release.manifest.version, sha256: entry.sha256, size: entry.size };
    const cached = this.served === release ? this.cache.get(format) : undefined;
    if (cached) return { ...base, body: cached };
    const object = await this.bucket.open(releaseFileKey(release.manifest.version, format));
    return object ? { ...base, body: object.body } : null;
  }
}
