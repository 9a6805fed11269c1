import * as z from 'zod';
import { randomBytes } from 'node:crypto';
import type { Bucket } from './bucket.ts';
import { sha256Hex } from '../util/digests.ts';
import { jsonOrNull } from '../util/json-or-null.ts';

/**
 * Deletion in two runs (docs/architecture.md, "Every bucket write"): a writer never deletes what
 * it finds unneeded, it marks it (`deletions/<name>.json`, created once); a later run deletes
 * what a mark names once the mark is older than the retention period by the store's own clock,
 * after reading the pointers again: a mark whose keys a pointer names by then is dropped instead.
 * A writer paused between its decision and its deletion cannot remove what another writer made
 * current since, because no writer acts on a decision older than MAX_WRITER_RUN_MS and no mark
 * is acted on before it is RETENTION old, which is longer.
 */
export const DELETIONS_PREFIX = 'deletions/';

const markSchema = z.object({
  /** Keys to remove, or a prefix whose every key goes (a release's folder: its manifest first). */
  keys: z.array(z.string()).default([]),
  prefix: z.string().nullable().default(null),
  reason: z.string(),
  /** The command that marked it, for people. */
  by: z.string(),
});
export type MarkBody = z.infer<typeof markSchema>;

/** A mark as read: its key, what it names, and when the store wrote it. */
export interface Mark extends MarkBody {
  key: string;
  marked: Date;
}

/** The mark's key: one per thing marked, so marking twice finds the first mark. */
export const markKey = (body: Pick<MarkBody, 'keys' | 'prefix'>) =>
  `${DELETIONS_PREFIX}${sha256Hex(Buffer.from(JSON.stringify([body.prefix, [...body.keys].sort()]))).slice(0, 32)}.json`;

/** Marks keys (or a prefix) for deletion by a later run; marking what is marked already changes nothing. */
export async function markForDeletion(bucket: Bucket, body: Pick<MarkBody, 'keys' | 'prefix' | 'reason' | 'by'>): Promise<void> {
  const bytes = Buffer.from(
    `${JSON.stringify({ keys: [...body.keys].sort(), prefix: body.prefix, reason: body.reason, by: body.by }, null, 2)}\n`,
  );
  await bucket.create(markKey(body), bytes, 'application/json');
  forgetMarks(bucket);
}

/** Drops what marksOf read for this bucket object: after its own marks changed. */
export function forgetMarks(bucket: Bucket): void {
  seenMarks.delete(bucket);
}

/**
 * The marks as one run of a writer sees them, read once per bucket object (a writer's bucket is
 * its own object for its run): to tell whether something it is about to rely on is marked. A mark
 * made after that read is younger than the run, so no sweep acts on it before the run is over
 * (MAX_WRITER_RUN_MS is far below the retention). A sweep reads afresh (readMarks).
 */
const seenMarks = new WeakMap<Bucket, Promise<Mark[]>>();
export function marksOf(bucket: Bucket): Promise<Mark[]> {
  let marks = seenMarks.get(bucket);
  if (!marks) {
    marks = readMarks(bucket);
    seenMarks.set(bucket, marks);
    // A failed read is not kept: the next caller reads again.
    marks.catch(() => seenMarks.delete(bucket));
  }
  return marks;
}

/** Every mark in the bucket. A mark that does not parse is left alone (it names nothing this version deletes). */
export async function readMarks(bucket: Bucket): Promise<Mark[]> {
  const marks: Mark[] = [];
  const keys = await bucket.list(DELETIONS_PREFIX);
  // A few at a time: each is two small reads (its bytes, its time), and a bucket may hold dozens.
  for (let i = 0; i < keys.length; i += 8) {
    const read = await Promise.all(
      keys.slice(i, i + 8).map(async (key) => ({ key, bytes: await bucket.get(key), marked: await bucket.modified(key) })),
    );
    for (const { key, bytes, marked } of read) {
      if (!bytes || !marked) continue;
      const parsed = markSchema.safeParse(jsonOrNull(bytes));
      if (parsed.success) marks.push({ ...parsed.data, key, marked });
    }
  }
  return marks;
}

/** Whether a key falls under what a mark names. Pure. */
export const markCovers = (mark: Pick<MarkBody, 'keys' | 'prefix'>, key: string) =>
  mark.keys.includes(key) || (mark.prefix !== null && key.startsWith(mark.prefix));

/**
 * What a sweep does with each mark, given the store's time now, the retention and the keys the
 * pointers name now: too young (kept for later), named again (the mark dropped), or due. Pure.
 */
export function sweepPlan(
  marks: readonly Mark[],
  storeNow: Date,
  retentionMs: number,
  live: (mark: Mark) => boolean,
): { due: Mark[]; cancelled: Mark[]; waiting: Mark[] } {
  const due: Mark[] = [];
  const cancelled: Mark[] = [];
  const waiting: Mark[] = [];
  for (const mark of marks) {
    if (live(mark)) cancelled.push(mark);
    else if (storeNow.getTime() - mark.marked.getTime() >= retentionMs) due.push(mark);
    else waiting.push(mark);
  }
  return { due, cancelled, waiting };
}

/**
 * Creates an object under `key`, or finds it there with the same bytes and no mark on it, and
 * returns the key that holds the bytes. An object there that is marked (a sweep may be about to
 * delete it) or that holds other bytes (damage) is not reused: the bytes are created under a fresh
 * name (`fresh(suffix)`), which no mark names. For objects named by their content (documents,
 * history files, import records), which a later run may need again after they were marked.
 */
export async function createOnce(
  bucket: Bucket,
  key: string,
  bytes: Uint8Array,
  contentType: string,
  fresh: (suffix: string) => string,
): Promise<string> {
  if ((await bucket.create(key, bytes, contentType)) === 'written') return key;
  // Refused or found (S3 cannot tell its own retried create from an object there before): the
  // object is reused only with these bytes and no mark, whatever the store answered.
  const there = await bucket.get(key);
  if (there?.equals(bytes) && !(await marksOf(bucket)).some((mark) => markCovers(mark, key))) return key;
  for (let attempt = 0; attempt < 4; attempt += 1) {
    const other = fresh(randomBytes(4).toString('hex'));
    if ((await bucket.create(other, bytes, contentType)) === 'written') return other;
  }
  throw new Error(`${bucket.description}${key}: no fresh name could be created for it`);
}
