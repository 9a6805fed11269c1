import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { keptByState, pruneSnapshots } from '../fetch/prune-snapshots.ts';
import { SnapshotStore } from '../fetch/snapshot-store.ts';
import { listReleases, readReleaseManifest } from '../publish/bucket-releases.ts';
import { manifestSchema } from '../release/manifest.ts';
import { isReleaseVersion } from '../release/release-version.ts';
import type { Bucket } from '../storage/bucket.ts';

/**
 * Removes the snapshots of `<data-dir>/snapshots/` that nothing needs: a snapshot stays while a
 * release kept in the bucket or among the data dir's local copies names it, or the store's state
 * keeps it (fetch/prune-snapshots.ts, keptDigests: the lists and notices the next builds read, the
 * last good download of an address given as it is). So the snapshots are bounded
 * by what the bucket keeps (`--keep`), however long the machine runs. Anything unread (a kept
 * release's manifest, a local copy's) stops the pruning, never widens it: the next run tries again.
 * Returns how many documents went.
 */
export async function pruneUnneededSnapshots(bucket: Bucket, dataDir: string): Promise<number> {
  const store = new SnapshotStore(dataDir);
  const needed = await keptByState(store);
  const { versions } = await listReleases(bucket);
  for (const version of versions) {
    const manifest = await readReleaseManifest(bucket, version);
    if (!manifest) throw new Error(`the bucket's ${version} has no manifest to say what it was built from`);
    for (const doc of manifest.provenance?.documents ?? []) needed.add(doc.sha256);
  }
  const local = join(dataDir, 'releases');
  for (const version of (await readdir(local).catch(() => [] as string[])).filter(isReleaseVersion)) {
    const manifest = manifestSchema.parse(JSON.parse(await readFile(join(local, version, 'manifest.json'), 'utf8')));
    for (const doc of manifest.provenance?.documents ?? []) needed.add(doc.sha256);
  }
  return (await pruneSnapshots(store, needed)).length;
}
