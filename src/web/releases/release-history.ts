import { readCurrentManifest, readReleaseManifest, readReleaseRows } from '../../publish/bucket-releases.ts';
import type { Bucket } from '../../storage/bucket.ts';
import { BackgroundRead, type BackgroundHealth } from '../../util/background-read.ts';
import { releaseNotes, type ReleaseNotes } from './release-notes.ts';

/** How long a page waits for a read that is due before it answers with the last one. */
const GRACE_MS = 500;

export interface ReleaseHistoryOptions {
  /** Releases shown, newest first. */
  depth: number;
  /** The bucket is read again at most this often; page views in between share one answer. */
  refreshMs: number;
  /** A read of the bucket still under way after this long is given up on; the last answer stays. */
  deadlineMs: number;
  log: (event: Record<string, unknown>) => void;
  now?: () => number;
}

/**
 * The recent releases and what each changed, for the public page and the Atom feed: the current
 * release, the one its changes were computed against, and so on back. A release that was rolled
 * back is not in that line, so it is not shown: the page tells the history clients lived through.
 * A published version never changes, so each one's notes are read from the bucket once.
 */
export class ReleaseHistory {
  private readonly notes = new Map<string, ReleaseNotes>();
  private readonly releases: BackgroundRead<ReleaseNotes[]>;

  private readonly bucket: Bucket;
  private readonly options: ReleaseHistoryOptions;

  constructor(bucket: Bucket, options: ReleaseHistoryOptions) {
    this.bucket = bucket;
    this.options = options;
    this.releases = new BackgroundRead('release pages', () => this.read(), {
      refreshMs: options.refreshMs,
      deadlineMs: options.deadlineMs,
      now: options.now ?? Date.now,
      log: options.log,
      failureEvent: 'history.read_failed',
    });
  }

  /**
   * Newest first. A read that is due gets a moment; past it, or when the bucket cannot be read, the
   * last answer stays (logged); with none yet, the failure is thrown.
   */
  async recent(): Promise<ReleaseNotes[]> {
    const releases = await this.releases.current(GRACE_MS);
    if (releases === undefined) throw new Error(this.releases.health(0).problem ?? 'the bucket gave no answer yet');
    return releases;
  }

  /** Whether the release pages show an answer older than allowed, for /healthz. */
  health(staleAfterMs: number): BackgroundHealth {
    return this.releases.health(staleAfterMs);
  }

  private async read(): Promise<ReleaseNotes[]> {
    const releases: ReleaseNotes[] = [];
    let version = (await readCurrentManifest(this.bucket))?.version ?? null;
    while (version && releases.length < this.options.depth) {
      const notes = this.notes.get(version) ?? (await this.readNotes(version));
      if (!notes) break;
      releases.push(notes);
      version = notes.changesSince;
    }
    // Only what the page can still show stays in memory.
    const shown = new Set(releases.map((r) => r.version));
    for (const version of this.notes.keys()) if (!shown.has(version)) this.notes.delete(version);
    return releases;
  }

  /** One kept release's notes; null when the bucket no longer keeps it (pruned): the line ends there. */
  private async readNotes(version: string): Promise<ReleaseNotes | null> {
    const manifest = await readReleaseManifest(this.bucket, version);
    const rows = manifest ? await readReleaseRows(this.bucket, version) : null;
    if (!manifest || !rows) return null;
    const notes = releaseNotes(manifest, rows);
    this.notes.set(version, notes);
    return notes;
  }
}
