import * as z from 'zod';
import { errors, TariffError } from '../errors.ts';
import type { Bucket, CreateOptions } from './bucket.ts';

/**
 * The object at the bucket's root that says which layout the bucket holds and which programs may
 * use it, as Delta Lake's protocol action and restic's repository version do. Read before any
 * other read or write of a command; written (create-once) by a writer's first write after its lease.
 */
export const FORMAT_KEY = 'tariff-bucket.json';

/**
 * The layouts, by number (docs/operations.md, "Upgrading"):
 * 1. tariff 0.1.0: no format object; a folder's pointers are plain files replaced by rename.
 * 2. tariff 1.0.0: the format object; every object created once, the pointers swapped by
 *    compare-and-swap (a folder keeps them as generations, `current.json.gen/`, and a plain
 *    `current.json` copy for readers of layout 1); the price history's file named by its digest.
 * 3. tariff 2.0.0: the price history as a log (history/history-store.ts): a checkpoint, segments
 *    of release events and a head, which a reader of layout 2 would take for a damaged history;
 *    so layout 3 asks for readers and writers of layout 3. Its history manifest of layout 1 is
 *    still read, and becomes a log at the history's next write.
 */
export const BUCKET_FORMAT = 3;
/** The newest layout this program reads, and the newest it writes. */
export const READS_FORMAT = 3;
export const WRITES_FORMAT = 3;

/**
 * The pointers a reader of layout 1 (tariff 0.1.0) reads from a folder as plain files, which a
 * folder bucket of layout 2 keeps as copies of their newest generation (local-bucket.ts), so that
 * such a reader goes on serving the newest release while it waits for its upgrade: the current
 * release, the signing keys that verify it, and the writer lease (a writer of layout 1 then sees
 * the lease of a writer of layout 2 that holds the bucket, and waits). The price history is not
 * among them: its files changed layout, so an older reader shows none until it is upgraded.
 */
export const PLAIN_COPIES: readonly string[] = ['current.json', 'keys.json', 'writer-lock.json'];

/**
 * The writer lease's key (publish/bucket-lease.ts): its writes check the format but do not create
 * it, so that a writer proves the store's conditions on its lease before anything else is written
 * (a store refused as unsupported is left as it was found), and the format object is created by the
 * first write after.
 */
const LEASE_KEY = 'writer-lock.json';

const formatSchema = z
  .object({
    format: z.literal('tariff-bucket'),
    version: z.number().int().positive(),
    /** The oldest reader that may read the bucket: a reader knowing fewer layouts refuses it. */
    minReaderVersion: z.number().int().positive(),
    /** The oldest writer that may write it. */
    minWriterVersion: z.number().int().positive(),
    /** For people: the program that wrote the object. */
    createdBy: z.string(),
  })
  // A later layout may say more: what it adds is not this program's to judge, only the versions.
  .loose();
export type BucketFormat = z.infer<typeof formatSchema>;

/** The format object this program writes on a bucket that has none. */
export function formatObject(createdBy: string): Buffer {
  const format: BucketFormat = {
    format: 'tariff-bucket',
    version: BUCKET_FORMAT,
    minReaderVersion: BUCKET_FORMAT,
    minWriterVersion: BUCKET_FORMAT,
    createdBy,
  };
  return Buffer.from(`${JSON.stringify(format, null, 2)}\n`);
}

/** The bucket's format object; null when it has none (layout 1, or nothing written yet). */
export async function readBucketFormat(bucket: Bucket): Promise<BucketFormat | null> {
  const bytes = await bucket.get(FORMAT_KEY);
  return bytes ? parseBucketFormat(bytes, `${bucket.description}${FORMAT_KEY}`) : null;
}

/** The format object's bytes, checked; a damaged one is never guessed at. Pure. */
export function parseBucketFormat(bytes: Uint8Array, where: string): BucketFormat {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(bytes).toString('utf8'));
  } catch (error) {
    throw errors.bucketFormatUnreadable(where, (error as Error).message);
  }
  const parsed = formatSchema.safeParse(value);
  if (!parsed.success) throw errors.bucketFormatUnreadable(where, parsed.error.issues[0]?.message ?? 'not a bucket format');
  return parsed.data;
}

/**
 * The refusal of a format this program cannot read (`read`) or write (`write`), or null. Pure.
 * Only the oldest versions a format asks for decide: a newer layout that older readers may still
 * read says so by asking for no newer reader.
 */
export function formatRefusal(format: BucketFormat | null, use: 'read' | 'write', where: string): TariffError | null {
  if (!format) return null;
  const needs = use === 'read' ? format.minReaderVersion : format.minWriterVersion;
  const knows = use === 'read' ? READS_FORMAT : WRITES_FORMAT;
  return needs > knows ? errors.bucketFormatNewer(where, format.version, use, needs, knows, format.createdBy) : null;
}

/** Reads the format and throws its refusal, if any: what `serve` does on each refresh. */
export async function checkBucketFormat(bucket: Bucket, use: 'read' | 'write'): Promise<BucketFormat | null> {
  const format = await readBucketFormat(bucket);
  const refusal = formatRefusal(format, use, `${bucket.description}${FORMAT_KEY}`);
  if (refusal) throw refusal;
  return format;
}

/**
 * The format object of an older layout replaced by this program's, only if it is still the one
 * read (compare-and-swap): one way, as `formatChecked` does before a first write. Another writer's
 * change meanwhile is read again and judged as any format is.
 */
async function upgradeFormat(bucket: Bucket, createdBy: string, where: string): Promise<void> {
  const tagged = await bucket.getTagged(FORMAT_KEY);
  const found = tagged ? parseBucketFormat(tagged.bytes, where) : null;
  if (found && found.version >= BUCKET_FORMAT) {
    const refusal = formatRefusal(found, 'write', where);
    if (refusal) throw refusal;
    return;
  }
  // Gone since it was read (removed by hand): written again as on a bucket that has none.
  const written = tagged
    ? await bucket.putIfUnchanged(FORMAT_KEY, formatObject(createdBy), 'application/json', tagged.tag)
    : await bucket.create(FORMAT_KEY, formatObject(createdBy), 'application/json');
  if (written === 'conflict' || written === 'exists') {
    const theirs = formatRefusal(await readBucketFormat(bucket), 'write', where);
    if (theirs) throw theirs;
  }
}

/**
 * The bucket with its format checked once before its first read and before its first write, and
 * written before the first write other than the lease's: created on a bucket that has none (the
 * bucket of layout 1 becomes this layout by that write), swapped on one of an older layout (2
 * becomes 3), one way (docs/operations.md, "Upgrading").
 * A command opens its bucket once, so once per run; `serve` checks again on every refresh
 * (checkBucketFormat).
 */
export function formatChecked(bucket: Bucket, createdBy: string): Bucket {
  const where = `${bucket.description}${FORMAT_KEY}`;
  let read: Promise<BucketFormat | null> | null = null;
  const readable = () => {
    // A read that failed (the store down) is tried again by the next call, not remembered.
    read ??= checkBucketFormat(bucket, 'read').catch((error: unknown) => {
      if (!(error instanceof TariffError && error.code === 'bucket_format_newer')) read = null;
      throw error;
    });
    return read;
  };
  /** Checked before every write (on the format read once); created or upgraded before the first write that is not the lease's. */
  let created = false;
  const writable = async (key: string | null) => {
    const format = await readable();
    const refusal = formatRefusal(format, 'write', where);
    if (refusal) throw refusal;
    if ((format && format.version >= BUCKET_FORMAT) || created || key === LEASE_KEY) return;
    if (format) await upgradeFormat(bucket, createdBy, where);
    // Two writers may both find none: one creates it, the other reads what it created.
    else if ((await bucket.create(FORMAT_KEY, formatObject(createdBy), 'application/json')) === 'exists') {
      const theirs = formatRefusal(await readBucketFormat(bucket), 'write', where);
      if (theirs) throw theirs;
    }
    created = true;
  };
  const reading =
    <A extends unknown[], R>(call: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      await readable();
      return call(...args);
    };
  const writing =
    <A extends unknown[], R>(call: (...args: A) => Promise<R>, keyOf: (...args: A) => string | null) =>
    async (...args: A): Promise<R> => {
      await writable(keyOf(...args));
      return call(...args);
    };
  return {
    description: bucket.description,
    get: reading((key) => bucket.get(key)),
    open: reading((key) => bucket.open(key)),
    getTagged: reading((key) => bucket.getTagged(key)),
    modified: reading((key) => bucket.modified(key)),
    list: reading((prefix) => bucket.list(prefix)),
    create: writing(
      (key: string, data: Uint8Array, contentType: string, options?: CreateOptions) => bucket.create(key, data, contentType, options),
      (key) => key,
    ),
    overwrite: writing(
      (key: string, data: Uint8Array, contentType: string, expected: string) => bucket.overwrite(key, data, contentType, expected),
      (key) => key,
    ),
    putIfUnchanged: writing(
      (key: string, data: Uint8Array, contentType: string, expected: string | null, options?: CreateOptions) =>
        bucket.putIfUnchanged(key, data, contentType, expected, options),
      (key) => key,
    ),
    // A deletion of the lease (its release) creates nothing; another deletion is a write like any.
    delete: writing(
      (keys: string[]) => bucket.delete(keys),
      (keys) => (keys.every((key) => key === LEASE_KEY) ? LEASE_KEY : null),
    ),
    ...(bucket.removeLeftovers
      ? {
          removeLeftovers: writing(
            () => bucket.removeLeftovers!(),
            () => null,
          ),
        }
      : {}),
  };
}
