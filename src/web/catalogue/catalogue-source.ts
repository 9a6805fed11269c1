import { mkdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { historyIdentity, readHistoryManifest, readHistoryParts, type HistoryParts } from '../../history/history-store.ts';
import type { Bucket } from '../../storage/bucket.ts';
import { releaseFileKey } from '../../publish/bucket-layout.ts';
import { BackgroundRead, within, type BackgroundHealth } from '../../util/background-read.ts';
import { cleanLeftovers } from '../../util/leftovers.ts';
import { describeFailure } from '../../util/machine-fault.ts';
import { buildCatalogue } from './build-catalogue.ts';
import { CatalogueDb } from './catalogue-db.ts';
import { CatalogueIndex } from './catalogue-index.ts';

export interface CatalogueSourceOptions {
  /** The version the service serves now (null before the first). */
  served: () => string | null;
  /** The bucket's history is looked at again at most this often. */
  refreshMs: number;
  /** A read of the bucket still under way after this long is given up on; the last good state stays. */
  deadlineMs: number;
  /** Where each catalogue's database is written (by a process of its own) before the service opens it and unlinks it. */
  cacheDir: string;
  log: (event: Record<string, unknown>) => void;
  now?: () => number;
}

/** How long a page waits for a history that is due, or its new catalogue, before it answers from the last state. */
const GRACE_MS = 500;

/**
 * How long the first page after a release switch waits for the new release's catalogue (its
 * builder starts a process: about a second at 10,000 products) before it answers from the last
 * one: a switch is rare, and its pages should show it. Once per release and process.
 */
const RELEASE_GRACE_MS = 5_000;

/** How long a catalogue that could not be built (its release's rows unreadable) waits before it is tried again. */
const RETRY_MS = 30_000;

/** How long the builder may read and write one catalogue before it is given up on. */
const BUILD_DEADLINE_MS = 120_000;

/** A replaced index is closed this long after: a page that took it before the switch still reads it to its end. */
const RETIRE_AFTER_MS = 60_000;

/** The history as the bucket holds it: what identifies it, and its files' bytes, checked against its manifest, not parsed here. */
interface HistoryState {
  identity: string | null;
  parts: HistoryParts | null;
}

/** What one catalogue is made from; two catalogues of the same are the same. */
interface CatalogueKey {
  version: string | null;
  history: HistoryState;
  unavailable: boolean;
}

const keyOf = ({ version, history, unavailable }: CatalogueKey) => `${version ?? ''}|${history.identity ?? ''}|${unavailable}`;

/**
 * The public catalogue of the release being served and the bucket's price history: one index per
 * release and history, built on the first page after either changed (so a service whose catalogue
 * nobody opens reads no rows) and shared by every page until the next change. The rows and the
 * history are read by a process of its own that writes the catalogue's database (build-catalogue.ts):
 * the service holds the names and reads an entry when a page shows it. Pages never wait for the
 * bucket once there is an index: the history is read again in the background when due, and a new
 * index is built while the last one answers. A history that cannot be read leaves the last one
 * (logged, and stale in /healthz once it is too old); a catalogue that cannot be built leaves the
 * last index (logged), or none: an empty catalogue.
 */
export class CatalogueSource {
  private built: { key: string; version: string | null; index: CatalogueIndex } | null = null;
  /** The catalogue the pages should show now: a build that ends after a newer one began is not taken. */
  private wanted = '';
  private building: { key: string; done: Promise<void> } | null = null;
  /** A catalogue that could not be built is not tried again before this (not on every page). */
  private failed: { key: string; retryAt: number } | null = null;
  private builds = 0;
  private readonly history: BackgroundRead<HistoryState>;
  private readonly bucket: Bucket;
  private readonly options: CatalogueSourceOptions;
  private readonly swept: Promise<unknown>;

  constructor(bucket: Bucket, options: CatalogueSourceOptions) {
    this.bucket = bucket;
    this.options = options;
    let known: HistoryState = { identity: null, parts: null };
    this.history = new BackgroundRead(
      'history',
      async () => {
        // The small manifest says whether the history changed: an unchanged one is not read whole.
        const manifest = await readHistoryManifest(bucket);
        const identity = historyIdentity(manifest);
        if (identity !== known.identity) known = { identity, parts: await readHistoryParts(bucket, manifest) };
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
    // What a process that crashed mid-build left (the others unlink theirs once open).
    this.swept = cleanLeftovers([options.cacheDir], 0).catch(() => []);
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }

  /**
   * The index for the release served now, with the last history read. Waits for the bucket only
   * when it has nothing to answer with (the first pages after a start); after that, the history
   * and a new release's catalogue are read while the last index answers.
   */
  async index(): Promise<CatalogueIndex> {
    const history = (await this.history.current(GRACE_MS)) ?? { identity: null, parts: null };
    // No history read yet because reads fail: the pages say it is unavailable, not that there is none.
    const wanted: CatalogueKey = { version: this.options.served(), history, unavailable: this.history.unavailable() };
    const key = keyOf(wanted);
    this.wanted = key;
    if (this.built?.key !== key) {
      const building = this.build(key, wanted);
      // Nothing to answer with yet: the pages wait. Otherwise a new catalogue gets a moment, a
      // longer one for a new release (its pages should show it), no more.
      if (this.built === null) await building;
      else await within(building, this.built.version === wanted.version ? GRACE_MS : RELEASE_GRACE_MS);
    }
    return this.built?.index ?? CatalogueIndex.of(null, null, { historyUnavailable: wanted.unavailable });
  }

  /** Settles once the catalogue being built is in (or failed): for tests, which cannot wait on a page. */
  async settled(): Promise<void> {
    await this.building?.done;
  }

  /** Reads the history now (tests, and a service that wants it before the first page). */
  refreshHistory(): Promise<void> {
    return this.history.refresh();
  }

  /** Whether the history the pages show is older than allowed, for /healthz. */
  health(staleAfterMs: number): BackgroundHealth {
    return this.history.health(staleAfterMs);
  }

  /** Builds one catalogue at a time per key; a failure is logged and leaves the last index. */
  private build(key: string, wanted: CatalogueKey): Promise<void> {
    if (this.building?.key === key) return this.building.done;
    if (this.failed?.key === key && this.now() < this.failed.retryAt) return Promise.resolve();
    const done = this.newIndex(wanted)
      .then((index) => {
        if (this.wanted !== key && this.built !== null) return index.close();
        const last = this.built;
        this.built = { key, version: wanted.version, index };
        this.failed = null;
        if (last) setTimeout(() => last.index.close(), RETIRE_AFTER_MS).unref();
      })
      .catch((error: unknown) => {
        this.failed = { key, retryAt: this.now() + RETRY_MS };
        // A fault of the machine (the cache folder unwritable, the disk full) is named with what to do.
        const { detail, remedy } = describeFailure(error);
        const logged = (error as { logged?: object }).logged ?? { event: 'catalogue.build_failed', version: wanted.version };
        this.options.log({ ...logged, error: remedy ? `${detail}. ${remedy}` : detail });
      })
      .finally(() => {
        if (this.building?.key === key) this.building = null;
      });
    this.building = { key, done };
    return done;
  }

  /** The catalogue of a release and a history, written by the builder and opened (its file unlinked once open). */
  private async newIndex({ version, history, unavailable }: CatalogueKey): Promise<CatalogueIndex> {
    if (version === null && history.parts === null) return CatalogueIndex.of(null, null, { historyUnavailable: unavailable });
    const releaseKey = version === null ? null : releaseFileKey(version, 'json');
    const release =
      releaseKey === null
        ? null
        : await this.bucket.get(releaseKey).catch((error: unknown) => {
            throw failed(version, error);
          });
    if (releaseKey !== null && !release) throw failed(version, new Error(`${releaseKey} is missing`));
    await this.swept;
    await mkdir(this.options.cacheDir, { recursive: true });
    const path = join(this.options.cacheDir, `.catalogue.${process.pid}-${(this.builds += 1)}.tmp`);
    const where = this.bucket.description;
    // A builder's failure is logged as the build's (build(), by default).
    await buildCatalogue(
      { release, releaseWhere: `${where}${releaseKey}`, history: history.parts, path },
      { deadlineMs: BUILD_DEADLINE_MS },
    );
    try {
      return new CatalogueIndex(new CatalogueDb(path), { historyUnavailable: unavailable });
    } finally {
      // Open, the file is no longer needed by name (and a crash leaves nothing); one that does not
      // open is of no use. Where a system cannot unlink an open file, a later start's sweep removes it.
      await unlink(path).catch(() => {});
    }
  }
}

/** A release's rows that could not be read, logged as such. */
function failed(version: string | null, error: unknown): Error {
  return Object.assign(error as Error, { logged: { event: 'catalogue.release_read_failed', version } });
}
