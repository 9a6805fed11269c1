import type { Readable } from 'node:stream';
import { TariffError } from '../errors.ts';

/** An object as read from a bucket: its size and a stream of its bytes. */
export interface BucketObject {
  size: number;
  body: Readable;
}

/** An object with its entity tag, which changes whenever the object is written. */
export interface TaggedObject {
  bytes: Buffer;
  tag: string;
}

/** What a conditional write did: written, or refused because another writer changed the object first. */
export type ConditionalWrite = 'written' | 'conflict';

/**
 * What a create-once write did: written; refused because the name holds an object already (never
 * replaced); or refused, the name found holding these very bytes. A store that cannot tell its own
 * retried write from an object written before (S3: a create whose answer was lost, retried by the
 * SDK, meets its own object) says `found`, never `written`: an object there before may be marked
 * for deletion, and only the caller knows whether it may reuse it (deferred-deletions.ts, createOnce).
 */
export type CreateOnce = 'written' | 'exists' | 'found';

/**
 * How an object is created. `private`: what only its owner may read (a registry backup holds
 * every account): a folder writes it 0600 in a 0700 folder; an S3 bucket is private unless its
 * policy says otherwise, and this asks nothing more of it.
 */
export interface CreateOptions {
  private?: boolean;
}

/**
 * Object storage as the release pipeline and the service use it: a local folder or an
 * S3-compatible bucket, chosen by a URI (see openBucket). Keys are relative, with `/` separators.
 * Nothing backend-specific crosses this interface.
 *
 * @example
 *   const bucket = await openBucket('s3://releases/tariff', { env: process.env });
 *   await bucket.create('releases/20261201.1/dataset.json.gz', bytes, 'application/gzip');
 *
 * A writer never replaces bytes unconditionally (docs/architecture.md, "Every bucket write"): an
 * object is created once under its name (`create`), the few pointers that change are swapped by
 * compare-and-swap (`putIfUnchanged`), and a damaged object is written again only if it still
 * holds the damaged bytes (`overwrite`). So a writer paused between a check and its write, and
 * resumed after another writer has moved on, is refused by the storage itself.
 */
export interface Bucket {
  /** A description for messages, never with credentials, ending with '/' so a key can follow: "folder /srv/bucket/", "s3://releases/tariff/". */
  readonly description: string;
  /** The whole object, or null when it does not exist. */
  get(key: string): Promise<Buffer | null>;
  /** A stream of the object, or null when it does not exist. */
  open(key: string): Promise<BucketObject | null>;
  /**
   * Writes the object whole only if no object has that name ('exists' otherwise, the object
   * untouched): S3's If-None-Match: *, a folder's link() of a written temporary.
   */
  create(key: string, data: Uint8Array, contentType: string, options?: CreateOptions): Promise<CreateOnce>;
  /**
   * Writes the object again only if it still carries `expected` (a damaged object being repaired
   * with the bytes its immutable manifest names): S3's If-Match. A folder renames over it after
   * comparing, which is safe only because every writer repairs a key with the same bytes.
   */
  overwrite(key: string, data: Uint8Array, contentType: string, expected: string): Promise<ConditionalWrite>;
  /** When the store last wrote the object, by the store's own clock (S3 Last-Modified, a file's mtime); null when absent. */
  modified(key: string): Promise<Date | null>;
  /** The whole object with its tag, or null when it does not exist. */
  getTagged(key: string): Promise<TaggedObject | null>;
  /**
   * Compare-and-swap: writes the object only if it still carries `expected` (null: only if it does
   * not exist yet), else 'conflict' and nothing is written. S3 does it with a conditional PUT
   * (If-Match, If-None-Match: *); a folder by creating the key's next generation exclusively
   * (local-bucket.ts), so no clock and no lock decide it and a late write cannot come back.
   * `private` as for `create`: a folder keeps the key's generations 0600 in a 0700 folder.
   */
  putIfUnchanged(
    key: string,
    data: Uint8Array,
    contentType: string,
    expected: string | null,
    options?: CreateOptions,
  ): Promise<ConditionalWrite>;
  /** Keys that start with `prefix`, in byte order. */
  list(prefix: string): Promise<string[]>;
  /**
   * Deletes the objects; missing ones are ignored. Only deferred deletion (publish/deferred-deletions.ts)
   * and the lease's release call it: nothing a pointer named within the retention period is deleted.
   */
  delete(keys: string[]): Promise<void>;
  /**
   * Removes what writers killed mid-write left (a folder's temporary files older than an hour by
   * the folder's own clock; an S3 write leaves nothing) and returns the keys removed. Called by a
   * writer holding the lease.
   */
  removeLeftovers?(): Promise<string[]>;
}

/**
 * A key whose file in a folder bucket is not a regular file (a folder, a FIFO): no object, never
 * read (a FIFO would block), and named with what to do rather than reported as a bug.
 */
export class NotAnObject extends TariffError {
  readonly kind: string;
  constructor(where: string, kind: string) {
    super('bucket_failed', `${where} is ${kind}, not an object`, 'Only tariff writes under the bucket: move it away, then run again.');
    this.kind = kind;
  }
}
