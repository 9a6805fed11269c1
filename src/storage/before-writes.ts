import type { Bucket } from './bucket.ts';

/** The writes of the Bucket port, by the name a write log gives them. */
export type WriteKind = 'create' | 'overwrite' | 'swap' | 'delete';

/**
 * The bucket with `before` run ahead of each of its writes (reads pass through): for a check that
 * may refuse the write (the writer's lease and age), or a test's failpoint. One wrapper, so that
 * a write added to the port is guarded everywhere at once.
 */
export function beforeWrites(bucket: Bucket, before: (kind: WriteKind, keys: string[]) => void | Promise<void>): Bucket {
  return {
    description: bucket.description,
    get: (key) => bucket.get(key),
    open: (key) => bucket.open(key),
    getTagged: (key) => bucket.getTagged(key),
    modified: (key) => bucket.modified(key),
    list: (prefix) => bucket.list(prefix),
    ...(bucket.removeLeftovers ? { removeLeftovers: bucket.removeLeftovers.bind(bucket) } : {}),
    async create(key, data, contentType, options) {
      await before('create', [key]);
      return bucket.create(key, data, contentType, options);
    },
    async overwrite(key, data, contentType, expected) {
      await before('overwrite', [key]);
      return bucket.overwrite(key, data, contentType, expected);
    },
    async putIfUnchanged(key, data, contentType, expected, options) {
      await before('swap', [key]);
      return bucket.putIfUnchanged(key, data, contentType, expected, options);
    },
    async delete(keys) {
      if (keys.length > 0) await before('delete', keys);
      return bucket.delete(keys);
    },
  };
}
