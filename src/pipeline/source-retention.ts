import { importedDigests } from '../history/history-store.ts';
import { listReleases, readReleaseManifest } from '../publish/bucket-releases.ts';
import { readSource, SOURCES_PREFIX, unreferencedSources } from '../publish/bucket-sources.ts';
import type { Bucket } from '../storage/bucket.ts';

/** The documents the bucket must keep, by digest: those of every kept release's provenance, and of every history import. */
export async function referencedSources(bucket: Bucket): Promise<Set<string>> {
  const [{ versions }, imported] = await Promise.all([listReleases(bucket), importedDigests(bucket)]);
  const referenced = new Set(imported);
  for (const version of versions) {
    const manifest = await readReleaseManifest(bucket, version);
    for (const doc of manifest?.provenance?.documents ?? []) referenced.add(doc.sha256);
  }
  return referenced;
}

/**
 * Removes the documents of sources/ that no kept release and no history import names any more
 * (after a prune, or a `history remove`): a document goes with the last that named it. Returns the keys removed.
 */
export async function removeUnreferencedSources(bucket: Bucket): Promise<string[]> {
  const keys = await bucket.list(SOURCES_PREFIX);
  if (keys.length === 0) return [];
  const removed = unreferencedSources(keys, await referencedSources(bucket));
  await bucket.delete(removed);
  return removed;
}

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
