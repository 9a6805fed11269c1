import {
  digestOfImportKey,
  HISTORY_FILE_KEY,
  HISTORY_IMPORTS_PREFIX,
  HISTORY_PREFIX,
  historyFileKeys,
  importKeys,
  readHistoryManifest,
  type HistoryManifest,
} from '../history/history-store.ts';
import { completeVersionsIn, RELEASES_PREFIX } from '../publish/bucket-layout.ts';
import { readCurrentManifest, readReleaseManifest } from '../publish/bucket-releases.ts';
import { digestOfSourceKey, SOURCES_PREFIX } from '../publish/bucket-sources.ts';
import { forgetMarks, markCovers, markForDeletion, readMarks, sweepPlan, type Mark } from '../storage/deferred-deletions.ts';
import { BACKUPS_PREFIX, LATEST_BACKUP_KEY, recordKeyOf } from '../registry/backup/backup-record.ts';
import { readLatestBackup } from '../registry/backup/latest-backup.ts';
import type { Bucket } from '../storage/bucket.ts';

/** What the bucket's pointers name now: nothing they name is marked, or deleted. */
export interface LiveKeys {
  /** The current release's folder. */
  currentPrefix: string | null;
  /** The folders of the releases kept now: the current one and the newest `keep` complete ones. */
  keptPrefixes: Set<string>;
  keys: Set<string>;
  /** Documents (sources/) a kept release or an included import was built from, by digest. */
  sourceDigests: Set<string>;
  /** The history's manifest, when there is one: what it names is live, the other history files not. */
  history: HistoryManifest | null;
  /** The keys under releases/ as read, for the sweep's look for incomplete versions. */
  releaseKeys: string[];
}

/** Whether a key is one the pointers name now. Pure. */
export function isLive(live: LiveKeys, key: string): boolean {
  if (live.keys.has(key) || (live.currentPrefix !== null && key.startsWith(live.currentPrefix))) return true;
  const digest = digestOfSourceKey(key);
  return digest !== null && live.sourceDigests.has(digest);
}

/** Whether a mark names anything the pointers name now (then it is dropped, not acted on). Pure. */
export const markIsLive = (live: LiveKeys, mark: Mark) =>
  mark.keys.some((key) => isLive(live, key)) || (mark.prefix !== null && live.keptPrefixes.has(mark.prefix));

/**
 * Reads what the bucket's pointers name, read again by every sweep just before it deletes:
 * current.json's release and the newest `keep` complete ones (a mark on one of those is stale: made
 * before a rollback, or by a writer keeping fewer), the documents of every complete release there,
 * the history's files and the import records it includes with their documents, and the newest backup.
 * A document goes only once no release there names it: after its last release, a retention later.
 */
export async function liveKeys(bucket: Bucket, keep: number): Promise<LiveKeys> {
  const [current, history, latest, releaseKeys] = await Promise.all([
    readCurrentManifest(bucket),
    readHistoryManifest(bucket),
    readLatestBackup(bucket).catch(() => null),
    bucket.list(RELEASES_PREFIX),
  ]);
  const keys = new Set<string>();
  const sourceDigests = new Set<string>();
  for (const doc of current?.provenance?.documents ?? []) sourceDigests.add(doc.sha256);
  const complete = completeVersionsIn(releaseKeys).complete;
  const kept = new Set([...complete.slice(-Math.max(keep, 1)), ...(current ? [current.version] : [])]);
  for (const version of complete) {
    const manifest = await readReleaseManifest(bucket, version).catch(() => null);
    for (const doc of manifest?.provenance?.documents ?? []) sourceDigests.add(doc.sha256);
  }
  if (history) {
    for (const key of historyFileKeys(history)) keys.add(key);
    for (const key of await importKeys(bucket, history)) {
      keys.add(key);
      sourceDigests.add(digestOfImportKey(key));
    }
  }
  if (latest) {
    keys.add(LATEST_BACKUP_KEY);
    keys.add(`${BACKUPS_PREFIX}${latest.file}`);
    keys.add(recordKeyOf(`${BACKUPS_PREFIX}${latest.file}`));
  }
  return {
    currentPrefix: current ? `${RELEASES_PREFIX}${current.version}/` : null,
    keptPrefixes: new Set([...kept].map((version) => `${RELEASES_PREFIX}${version}/`)),
    keys,
    sourceDigests,
    history,
    releaseKeys,
  };
}

export interface GarbageOptions {
  /** The store's time now (bucket-writer.ts: the lease's write time, moved on by this machine's monotonic clock). */
  storeNow: Date;
  retentionMs: number;
  /** The command marking, for people reading a mark. */
  by: string;
  /** How many complete releases this writer keeps (--keep, TARIFF_KEEP): a mark on one of them is dropped. */
  keep: number;
  /** Whole groups the caller retires now: versions beyond --keep, backups beyond --keep. */
  retire?: { keys?: string[]; prefix?: string; reason: string }[];
}

export interface GarbageReport {
  /** What was marked now, a line each ("releases/20261101.1/", "sources/….pdf"). */
  marked: string[];
  /** What was deleted now (marked by an earlier run, past the retention, named by no pointer). */
  removed: string[];
  /** Marks dropped because a pointer names what they marked again. */
  kept: string[];
}

const describe = (mark: Pick<Mark, 'keys' | 'prefix'>) => [...(mark.prefix ? [mark.prefix] : []), ...mark.keys];

/**
 * Deferred deletion, one pass: the marks past the retention whose keys no pointer names are
 * acted on (keys deleted, a release's manifest first, then the mark), the marks whose keys a
 * pointer names again are dropped, and what no pointer names now is marked for a later pass:
 * the groups the caller retires, releases a crashed or refused writer left incomplete, documents,
 * history files and import records nothing names.
 */
export async function collectGarbage(bucket: Bucket, options: GarbageOptions): Promise<GarbageReport> {
  const marks = await readMarks(bucket);
  let live = await liveKeys(bucket, options.keep);
  const plan = sweepPlan(marks, options.storeNow, options.retentionMs, (mark) => markIsLive(live, mark));
  const report: GarbageReport = { marked: [], removed: [], kept: [] };
  for (const mark of plan.cancelled) {
    await bucket.delete([mark.key]);
    report.kept.push(...describe(mark));
  }
  for (const mark of plan.due) {
    const under = mark.prefix ? await bucket.list(mark.prefix) : [];
    // A release's manifest first: a removal cut short leaves an incomplete version, never a manifest naming missing files.
    const manifests = under.filter((key) => key.endsWith('/manifest.json'));
    await bucket.delete(manifests);
    await bucket.delete([...under.filter((key) => !manifests.includes(key)), ...mark.keys]);
    await bucket.delete([mark.key]);
    report.removed.push(...describe(mark));
  }
  // What the deletions just made unnamed (a removed release's documents) is marked in this same pass.
  if (plan.due.length > 0) live = await liveKeys(bucket, options.keep);
  const waiting = plan.waiting;
  const covered = (key: string) => waiting.some((mark) => markCovers(mark, key));
  const retire = async (body: { keys?: string[]; prefix?: string; reason: string }) => {
    const keys = (body.keys ?? []).filter((key) => !isLive(live, key) && !covered(key));
    const prefix = body.prefix && !live.keptPrefixes.has(body.prefix) && !covered(body.prefix) ? body.prefix : null;
    if (keys.length === 0 && prefix === null) return;
    await markForDeletion(bucket, { keys, prefix, reason: body.reason, by: options.by });
    report.marked.push(...describe({ keys, prefix }));
  };
  for (const group of options.retire ?? []) await retire(group);
  for (const version of completeVersionsIn(live.releaseKeys).orphans)
    await retire({
      prefix: `${RELEASES_PREFIX}${version}/`,
      reason: 'an incomplete version, left by a writer that crashed or was refused',
    });
  // The objects named by nothing, one mark for all of them: a mark is a durable write, one a pass.
  const unnamed = (await bucket.list(SOURCES_PREFIX)).filter((key) => digestOfSourceKey(key));
  // Without a manifest nothing says which history files count: none is marked (a first write may be under way).
  for (const key of live.history ? await bucket.list(HISTORY_PREFIX) : []) {
    const file = HISTORY_FILE_KEY.test(key);
    const record = key.startsWith(HISTORY_IMPORTS_PREFIX) && live.history!.imports !== undefined;
    if (file || record) unnamed.push(key);
  }
  await retire({ keys: unnamed, reason: 'documents, history files and import records that nothing names' });
  for (const list of [report.marked, report.removed, report.kept]) list.sort();
  forgetMarks(bucket);
  return report;
}
