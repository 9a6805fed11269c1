import type { Readable } from 'node:stream';

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
 * Object storage as the release pipeline and the service use it: a local folder or an
 * S3-compatible bucket, chosen by a URI (see openBucket). Keys are relative, with `/` separators.
 * Nothing backend-specific crosses this interface.
 *
 * @example
 *   const bucket = await openBucket('s3://releases/tariff', { env: process.env });
 *   await bucket.put('current.json', Buffer.from(json), 'application/json');
 */
export interface Bucket {
  /** A description for messages, never with credentials, ending with '/' so a key can follow: "folder /srv/bucket/", "s3://releases/tariff/". */
  readonly description: string;
  /** The whole object, or null when it does not exist. */
  get(key: string): Promise<Buffer | null>;
  /** A stream of the object, or null when it does not exist. */
  open(key: string): Promise<BucketObject | null>;
  /** Writes the object whole: readers see the old bytes or the new ones, never a part. */
  put(key: string, data: Uint8Array, contentType: string): Promise<void>;
  /** The whole object with its tag, or null when it does not exist. */
  getTagged(key: string): Promise<TaggedObject | null>;
  /**
   * Compare-and-swap: writes the object only if it still carries `expected` (null: only if it does
   * not exist yet), else 'conflict' and nothing is written. S3 does it with a conditional PUT
   * (If-Match, If-None-Match: *); a folder under a lock file in the folder.
   */
  putIfUnchanged(key: string, data: Uint8Array, contentType: string, expected: string | null): Promise<ConditionalWrite>;
  /** Keys that start with `prefix`, in byte order. */
  list(prefix: string): Promise<string[]>;
  /** Deletes the objects; missing ones are ignored. */
  delete(keys: string[]): Promise<void>;
  /**
   * Removes what writers killed mid-write left (a folder's temporary files older than an hour;
   * an S3 write leaves nothing) and returns the keys removed. Called by a writer holding the lease.
   */
  removeLeftovers?(now: Date): Promise<string[]>;
}
