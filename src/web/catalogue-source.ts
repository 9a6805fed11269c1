import type { Dataset } from '../dataset/model.ts';
import { readHistory, readHistoryManifest } from '../history/history-store.ts';
import type { PriceHistory } from '../history/price-history.ts';
import type { Bucket } from '../storage/bucket.ts';
import { CatalogueIndex } from './catalogue-index.ts';

/** The rows of the release being served, as the service holds them. */
type ServedRows = Pick<Dataset, 'version' | 'tariffDate' | 'products' | 'barcodes' | 'announced'>;

export interface CatalogueSourceOptions {
  /** The release the service serves now (null before the first). */
  served: () => ServedRows | null;
  /** The bucket's history is looked at again at most this often. */
  refreshMs: number;
  log: (event: Record<string, unknown>) => void;
  now?: () => number;
}

/**
 * The public catalogue of the release being served and the bucket's price history: one index per
 * release and history, built on the first page after either changed and shared by every page until
 * the next change. A history that cannot be read leaves the last one (logged); the catalogue of
 * the release alone is shown until one is read.
 */
export class CatalogueSource {
  private history: { sha256: string | null; history: PriceHistory | null; checkedAt: number } = {
    sha256: null,
    history: null,
    checkedAt: -Infinity,
  };
  private built: { key: string; index: CatalogueIndex } | null = null;
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
    const served = this.options.served();
    const key = `${served?.version ?? ''}|${this.history.sha256 ?? ''}`;
    if (this.built?.key !== key) this.built = { key, index: new CatalogueIndex(served, this.history.history) };
    return this.built.index;
  }

  private async checkHistory(): Promise<void> {
    try {
      const manifest = await readHistoryManifest(this.bucket);
      if ((manifest?.sha256 ?? null) !== this.history.sha256) {
        const read = await readHistory(this.bucket);
        this.history = { sha256: read.manifest?.sha256 ?? null, history: read.manifest ? read.history : null, checkedAt: this.now() };
      } else this.history.checkedAt = this.now();
    } catch (error) {
      this.options.log({ event: 'catalogue.history_read_failed', error: (error as Error).message });
      this.history.checkedAt = this.now();
    }
  }
}
