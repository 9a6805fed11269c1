import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileName, holdsDigest, type Format, type Manifest } from '../release/manifest.ts';
import type { Bucket } from '../storage/bucket.ts';
import { releaseFileKey } from './bucket-layout.ts';

/** A place that may hold a published file's bytes (the bucket, a local copy): null when it has none. */
export interface CopySource {
  /** For the operator: "the bucket", "the local copy". */
  name: string;
  read: (version: string, format: Format) => Promise<Uint8Array | null>;
}

/** The bucket's own copy of each release file. */
export const bucketCopies = (bucket: Bucket): CopySource => ({
  name: 'the bucket',
  read: (version, format) => bucket.get(releaseFileKey(version, format)),
});

/** The local copy every published release leaves in `<data-dir>/releases/<version>/`. */
export const localCopies = (releasesDir: string): CopySource => ({
  name: 'the local copy',
  read: (version, format) => readFile(join(releasesDir, version, fileName(format))).catch(() => null),
});

/**
 * The first copy of one file of a release whose bytes are the manifest's (size and SHA-256), and
 * where it was found; null when no source holds it intact. A damaged copy is never used.
 */
export async function intactFile(
  manifest: Manifest,
  format: Format,
  sources: readonly CopySource[],
): Promise<{ bytes: Uint8Array; from: string } | null> {
  for (const source of sources) {
    const bytes = await source.read(manifest.version, format);
    if (bytes && holdsDigest(bytes, manifest.files[format])) return { bytes, from: source.name };
  }
  return null;
}
