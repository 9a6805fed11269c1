import { readHistory, readHistoryManifest } from '../history/history-store.ts';
import type { PriceHistory } from '../history/price-history.ts';
import type { Bucket } from '../storage/bucket.ts';
import { releaseFileKey } from '../publish/bucket-layout.ts';
import { readReleaseRows } from '../publish/bucket-releases.ts';
import { CatalogueIndex } from './catalogue-index.ts';

export interface CatalogueSourceOptions {
  /** The version the service serves now (null before the first). */
  served: () => string | null;
  /** The bucket's history is looked at again at most this often. */
  refreshMs: number;
  log: (event: Record<string, unknown>) => void;
  now?: () => number;
}

/**
 * The public catalogue of the release being served and the bucket's price history: one index per
 * release and history, built on the first page after either changed (the release's rows read from
 * its `dataset.json.gz` then, so a service whose catalogue nobody opens holds no rows) and shared by
 * every page until the next change. A history that cannot be read leaves the last one (logged); a
 * release whose rows cannot be read leaves the last index (logged).
 */
export class CatalogueSource {
  private history: { sha256: string | null; history: PriceHistory | null; checkedAt: number } = {
    sha256: null,
    history: null,
    checkedAt: -Infinity,
  };
  private built: { key: string; index: CatalogueIndex } | null = null;
  private building: { key: string; index: Promise<CatalogueIndex> } | null = null;
  private checking: Promise<void> | null = null;
  private readonly bucket: Bucket;
  private readonly options: CatalogueSourceOptions;
  private readonly now: () => number;

  constructor(bucket: Bucket, options: CatalogueSourceOptions) {
    this.bucket = bucket;
    this.options = options;
    this.now = options.now ?? Date.now;
  }

  /** The index for the release served now; the history is looked at again when it is due. */
  async index(): Promise<CatalogueIndex> {
    if (this.now() - this.history.checkedAt >= this.options.refreshMs) {
      this.checking ??= this.checkHistory().finally(() => {
        this.checking = null;
      });
      await this.checking;
    }
    const version = this.options.served();
    const key = `${version ?? ''}|${this.history.sha256 ?? ''}`;
    if (this.built?.key === key) return this.built.index;
    if (this.building?.key !== key) {
      const index = this.build(version, this.history.history).then((built) => {
        if (this.building?.key === key) this.building = null;
        if (built) this.built = { key, index: built };
        return this.built?.index ?? new CatalogueIndex(null, this.history.history);
      });
      this.building = { key, index };
    }
    return this.building.index;
  }

  /** The index of that release's rows and this history; null when the rows cannot be read (logged). */
  private async build(version: string | null, history: PriceHistory | null): Promise<CatalogueIndex | null> {
    if (version === null) return new CatalogueIndex(null, history);
    try {
      const rows = await readReleaseRows(this.bucket, version);
      if (!rows) throw new Error(`${releaseFileKey(version, 'json')} is missing`);
      return new CatalogueIndex(rows, history);
    } catch (error) {
      this.options.log({ event: 'catalogue.release_read_failed', version, error: (error as Error).message });
      return null;
    }
  }

  private async checkHistory(): Promise<void> {
    try {
      const manifest = await readHistoryManifest(this.bucket);
      const sha256 = manifest?.sha256 ?? null;
      if (sha256 !== this.history.sha256) {
        const history = manifest ? (await readHistory(this.bucket, manifest)).history : null;
        this.history = { ...this.history, sha256, history };
      }
    } catch (error) {
      this.options.log({ event: 'catalogue.history_read_failed', error: (error as Error).message });
    }
    this.history.checkedAt = this.now();
  }
}
