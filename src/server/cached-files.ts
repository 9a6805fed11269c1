import { releaseFileKey } from '../publish/bucket-layout.ts';
import { bucketFileProblems } from '../publish/check-bucket-release.ts';
import { FORMATS, holdsDigest, type Format, type Manifest } from '../release/manifest.ts';
import type { Bucket } from '../storage/bucket.ts';

/**
 * The files of a release, loaded and checked against its manifest when they fit in `cacheBytes`;
 * an empty map means streaming, and then each file is read through once and checked before the
 * release is served. Throws, naming the file, when one does not match.
 */
export async function cachedFiles(bucket: Bucket, manifest: Manifest, cacheBytes: number): Promise<Map<Format, Buffer>> {
  const cache = new Map<Format, Buffer>();
  const total = FORMATS.reduce((sum, format) => sum + manifest.files[format].size, 0);
  if (total > cacheBytes) {
    const problems = await bucketFileProblems(bucket, manifest);
    if (problems.length > 0) throw new Error(`${problems.join('; ')}; not serving ${manifest.version}`);
    return cache;
  }
  for (const format of FORMATS) {
    const bytes = await bucket.get(releaseFileKey(manifest.version, format));
    if (!bytes || !holdsDigest(bytes, manifest.files[format])) {
      throw new Error(`${releaseFileKey(manifest.version, format)} does not match the manifest; keeping the previous release`);
    }
    cache.set(format, bytes);
  }
  return cache;
}
