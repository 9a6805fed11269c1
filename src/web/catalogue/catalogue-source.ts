import { readHistory, readHistoryManifest } from '../../history/history-store.ts';
import type { Dataset } from '../../dataset/model.ts';
import type { PriceHistory } from '../../history/price-history.ts';
import type { Bucket } from '../../storage/bucket.ts';
import { releaseFileKey } from '../../publish/bucket-layout.ts';
import { readReleaseRows } from '../../publish/bucket-releases.ts';
import { BackgroundRead, within, type BackgroundHealth } from '../../util/background-read.ts';
import { CatalogueIndex } from './catalogue-index.ts';

export interface CatalogueSourceOptions {
  /** The version the service serves now (null before the first). */
  served: () => string | null;
  /** The bucket's history is looked at again at most this often. */
  refreshMs: number;
  /** A read of the bucket still under way after this long is given up on; the last good state stays. */
  deadlineMs: number;
  log: (event: Record<string, unknown>) => void;
  now?: () => number;
}

/** How long a page waits for a new release's rows, or a history that is due, before it answers from the last state. */
const GRACE_MS = 500;

/** How long a release whose rows could not be read waits before they are read again. */
const ROWS_RETRY_MS = 30_000;

interface HistoryState {
  sha256: string | null;
  history: PriceHistory | null;
}

/**
 * The public catalogue of the release being served and the bucket's price history: one index per
 * release and history, built on the first page after either changed (the release's rows read from
 * its `dataset.json.gz` then, so a service whose catalogue nobody opens holds no rows) and shared by
 * every page until the next change. Pages never wait for the bucket once there is an index: the
 * history is read again in the background when due, and a new release's index is built while the
 * last one answers. A history that cannot be read leaves the last one (logged, and stale in
 * /healthz once it is too old); a release whose rows cannot be read leaves the last index (logged).
 */
export class CatalogueSource {
  private built: { key: string; index: CatalogueIndex } | null = null;
  private rows: Dataset | null = null;
  private loading: { version: string; done: Promise<void> } | null = null;
  /** A release whose rows could not be read is not asked for again before this (not on every page). */
  private failedRows: { version: string; retryAt: number } | null = null;
  private readonly history: BackgroundRead<HistoryState>;
  private readonly bucket: Bucket;
  private readonly options: CatalogueSourceOptions;

  constructor(bucket: Bucket, options: CatalogueSourceOptions) {
    this.bucket = bucket;
    this.options = options;
    let known: HistoryState = { sha256: null, history: null };
    this.history = new BackgroundRead(
      'history',
      async () => {
        // The small manifest says whether the history changed: an unchanged one is not read whole.
        const manifest = await readHistoryManifest(bucket);
        const sha256 = manifest?.sha256 ?? null;
        if (sha256 !== known.sha256) known = { sha256, history: manifest ? (await readHistory(bucket, manifest)).history : null };
        return known;
      },
      {
        refreshMs: options.refreshMs,
        deadlineMs: options.deadlineMs,
        now: options.now ?? Date.now,
        log: options.log,
        failureEvent: 'catalogue.history_read_failed',
      },
    );
  }

  /**
   * The index for the release served now, with the last history read. Waits for the bucket only
   * when it has nothing to answer with (the first pages after a start); after that, the history
   * and a new release's rows are read while the last index answers.
   */
  async index(): Promise<CatalogueIndex> {
    const history = (await this.history.current(GRACE_MS)) ?? { sha256: null, history: null };
    const version = this.options.served();
    if (version !== null && this.rows?.version !== version) {
      const loading = this.loadRows(version);
      // No release's rows yet at all: there is nothing older to answer with. Otherwise a new
      // release's rows get a moment (a release switch is rare, its pages should show it), no more.
      await (this.rows === null ? loading : within(loading, GRACE_MS));
    }
    const rows = version !== null && this.rows?.version === version ? this.rows : null;
    // The release's rows are not read yet (or cannot be): the last index answers.
    if (version !== null && rows === null && this.built) return this.built.index;
    // No history read yet because reads fail: the pages say it is unavailable, not that there is none.
    const unavailable = this.history.unavailable();
    const key = `${rows?.version ?? ''}|${history.sha256 ?? ''}|${unavailable}`;
    if (this.built?.key !== key)
      this.built = { key, index: new CatalogueIndex(rows, history.history, { historyUnavailable: unavailable }) };
    return this.built.index;
  }

  /** Settles once the release rows being read are in (or failed): for tests, which cannot wait on a page. */
  async settled(): Promise<void> {
    await this.loading?.done;
  }

  /** Reads the history now (tests, and a service that wants it before the first page). */
  refreshHistory(): Promise<void> {
    return this.history.refresh();
  }

  /** Whether the history the pages show is older than allowed, for /healthz. */
  health(staleAfterMs: number): BackgroundHealth {
    return this.history.health(staleAfterMs);
  }

  /** Reads a release's rows once (one read per version at a time); a failure is logged and leaves the last rows. */
  private loadRows(version: string): Promise<void> {
    if (this.loading?.version === version) return this.loading.done;
    const now = this.options.now ?? Date.now;
    if (this.failedRows?.version === version && now() < this.failedRows.retryAt) return Promise.resolve();
    const done = readReleaseRows(this.bucket, version)
      .then((rows) => {
        if (!rows) throw new Error(`${releaseFileKey(version, 'json')} is missing`);
        this.rows = rows;
      })
      .catch((error: unknown) => {
        this.failedRows = { version, retryAt: now() + ROWS_RETRY_MS };
        this.options.log({ event: 'catalogue.release_read_failed', version, error: (error as Error).message });
      })
      .finally(() => {
        if (this.loading?.version === version) this.loading = null;
      });
    this.loading = { version, done };
    return done;
  }
}
