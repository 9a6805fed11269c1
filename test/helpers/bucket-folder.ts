import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The file that holds a key of a folder bucket now: a key that changes (current.json, the
 * history's manifest, keys.json) is kept as generations (`<key>.gen/<n>`, the highest current:
 * src/storage/local-bucket.ts), a key written once is its own file. For tests that read or damage
 * a bucket as its files lie; the product reads it through LocalBucket.
 */
export function bucketKeyPath(folder: string, key: string): string {
  const generations = join(folder, `${key}.gen`);
  try {
    if (!statSync(generations).isDirectory()) return join(folder, key);
  } catch {
    return join(folder, key);
  }
  const newest = readdirSync(generations)
    .filter((name) => /^\d{12}$/.test(name))
    .sort()
    .at(-1);
  return newest ? join(generations, newest) : join(folder, key);
}

/** A key's bytes in a folder bucket, or null when it holds none (never written, or deleted). */
export function readBucketKey(folder: string, key: string): Buffer | null {
  try {
    const bytes = readFileSync(bucketKeyPath(folder, key));
    return bytes.length === 0 && bucketKeyPath(folder, key) !== join(folder, key) ? null : bytes;
  } catch {
    return null;
  }
}

/** A key's JSON in a folder bucket (current.json, history/manifest.json), read as a reader of the bucket would. */
export function readBucketJson(folder: string, key: string): ReturnType<typeof JSON.parse> {
  const bytes = readBucketKey(folder, key);
  if (!bytes) throw new Error(`${folder}/${key}: no such key in the bucket`);
  return JSON.parse(bytes.toString('utf8'));
}
