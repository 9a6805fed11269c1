import { createHash, randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { FilesystemStore } from 's3rver';
// s3rver's own list of the headers it keeps with an object, so that this store keeps the same.
import S3Object from 's3rver/lib/models/object.js';

/**
 * Gives the test S3 server what every S3 store promises and s3rver lacks: a PUT is answered once
 * its object is whole, and a read sees the old object or the new one, never part of either.
 * s3rver answers a PUT before its file is flushed and overwrites files in place (seen: a GET of
 * `current.json` right after its PUT read a cut manifest), which a real store never shows a client.
 * Each file is written aside and renamed over the old one.
 */
export function makeWritesAtomic(store: FilesystemStore): void {
  const putAside = async (path: string, write: (aside: string) => Promise<void>) => {
    const aside = `${path}.${randomUUID()}.writing`;
    try {
      await write(aside);
      await rename(aside, path);
    } finally {
      await rm(aside, { force: true });
    }
  };
  store.putMetadata = async (bucket, key, metadata, md5) => {
    const kept = Object.fromEntries(
      Object.entries(metadata).filter(([name]) => S3Object.ALLOWED_METADATA.includes(name) || name.startsWith('x-amz-meta-')),
    );
    if (md5) await putAside(store.getResourcePath(bucket, key, 'object.md5'), (aside) => writeFile(aside, md5));
    await putAside(store.getResourcePath(bucket, key, 'metadata.json'), (aside) => writeFile(aside, JSON.stringify(kept, null, 2)));
  };
  store.putObject = async (object) => {
    const path = store.getResourcePath(object.bucket, object.key, 'object');
    await mkdir(dirname(path), { recursive: true });
    const md5 = createHash('md5');
    let size = 0;
    const counted = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        md5.update(chunk);
        size += chunk.length;
        done(null, chunk);
      },
    });
    const content = Buffer.isBuffer(object.content) ? Readable.from([object.content]) : object.content;
    await putAside(path, (aside) => pipeline(content, counted, createWriteStream(aside)));
    const digest = md5.digest('hex');
    await store.putMetadata(object.bucket, object.key, object.metadata, digest);
    return { size, md5: digest };
  };
}
