import { listReleases, readReleaseManifest } from '../publish/bucket-releases.ts';
import { readSource, SOURCES_PREFIX } from '../publish/bucket-sources.ts';
import type { Bucket } from '../storage/bucket.ts';

/**
 * What `tariff verify --bucket` says of the documents: one line for each document a kept release
 * names that sources/ lacks, or holds with other bytes (that release cannot be built again from the bucket).
 */
export async function sourceProblems(bucket: Bucket): Promise<string[]> {
  const { versions } = await listReleases(bucket);
  const problems: string[] = [];
  const checked = new Map<string, boolean>();
  for (const version of versions) {
    const manifest = await readReleaseManifest(bucket, version);
    for (const doc of manifest?.provenance?.documents ?? []) {
      if (!checked.has(doc.sha256)) checked.set(doc.sha256, (await readSource(bucket, doc.sha256)) !== null);
      if (!checked.get(doc.sha256))
        problems.push(
          `${bucket.description}${SOURCES_PREFIX}: ${version} was built from ${doc.url} (sha256 ${doc.sha256}), which it does not keep whole`,
        );
    }
  }
  return problems;
}
