import { readFile, stat } from 'node:fs/promises';
import type { Settings } from '../config/settings.ts';
import type { Barcode, Dataset } from '../dataset/model.ts';
import { parseBarcodeList } from '../dataset/parse-barcode-list.ts';
import { errors } from '../errors.ts';
import type { CopySource } from '../publish/intact-copies.ts';
import { listReleases, readCurrentManifest } from '../publish/bucket-releases.ts';
import { readPublishedRows, unreadablePrevious } from '../publish/read-published-rows.ts';
import { registryPath } from '../registry/registry-path.ts';
import type { Manifest } from '../release/manifest.ts';
import { findManifest, readReleaseDataset } from '../release/read-release.ts';
import type { Bucket } from '../storage/bucket.ts';
import { SnapshotStore } from '../fetch/snapshot-store.ts';
import { publicDocumentName } from '../source/document-name.ts';

export interface PreviousRelease {
  manifest: Manifest | null;
  dataset: Dataset | null;
  takenVersions: string[];
}

/**
 * The approved matches a release includes: a --barcodes list, then the registry's (they win: they
 * are the moderated truth). The registry is read only where there is one.
 */
export async function approvedBarcodes(file: string | undefined, settings: Settings, dataDir: string): Promise<Barcode[]> {
  const fromFile = file ? parseBarcodeList(await readBarcodeFile(file), file) : [];
  const fromRegistry = await registryBarcodes(settings, dataDir);
  // The list holds each barcode once already: with no registry there is nothing to merge.
  if (fromRegistry.length === 0) return fromFile;
  const merged = new Map<string, Barcode>();
  for (const barcode of [...fromFile, ...fromRegistry]) merged.set(barcode.barcode, barcode);
  return [...merged.values()];
}

async function registryBarcodes(settings: Settings, dataDir: string): Promise<Barcode[]> {
  const exists = await stat(registryPath({ dataDir, url: settings.registry })).then(
    () => true,
    () => false,
  );
  if (!settings.registry && !exists) return [];
  // Loaded only when there is a registry: most builds have none, and its engines are slow to load.
  const [{ openRegistry }, { loadRules }] = await Promise.all([
    import('../registry/open-registry.ts'),
    import('../barcodes/load-rules.ts'),
  ]);
  const registry = await openRegistry({ dataDir, url: settings.registry, poolSize: settings.pgPoolSize, rules: loadRules(settings) });
  try {
    return await registry.approvedBarcodes();
  } finally {
    await registry.close();
  }
}

async function readBarcodeFile(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    throw errors.barcodesInvalid(path, `cannot read the barcode list: ${(error as Error).message}`);
  }
}

/** The bucket's current release, its rows (from an intact copy; null, said, when none is), and every version kept. */
export async function previousInBucket(
  bucket: Bucket,
  say: (line: string) => void,
  copies: readonly CopySource[] = [],
): Promise<PreviousRelease> {
  const [manifest, kept] = await Promise.all([readCurrentManifest(bucket), listReleases(bucket)]);
  const dataset = manifest ? await readPublishedRows(bucket, manifest, say, copies) : null;
  return { manifest, dataset, takenVersions: [...kept.versions, ...kept.incomplete, ...kept.marked] };
}

/** The release a --previous folder (or manifest.json) holds; none yet is the first build (cron's first run), not an error. */
export async function previousInFolder(path: string | undefined, say: (line: string) => void): Promise<PreviousRelease> {
  const none = { manifest: null, dataset: null, takenVersions: [] };
  if (!path) return none;
  const found = await findManifest(path);
  if (!found) return none;
  const { manifest } = found;
  try {
    return { manifest, dataset: (await readReleaseDataset(path)).dataset, takenVersions: [] };
  } catch (error) {
    say(unreadablePrevious(path, error));
    return { manifest, dataset: null, takenVersions: [] };
  }
}

/**
 * Keeps each document read in the data dir's snapshots by digest, named by its public name (no
 * folder of the builder): for `readSources`' `keep`, so that a document parsed as it is read and
 * let go can still be kept in the bucket's sources/ by a publication, and found by `verify --rebuild`.
 */
export function keepInSnapshots(dataDir: string, now: () => Date): (name: string, bytes: Uint8Array) => Promise<unknown> {
  const store = new SnapshotStore(dataDir);
  return (name, bytes) => store.store(bytes, { url: publicDocumentName(name), fetchedAt: now().toISOString() });
}

/** A document's bytes from the data dir's snapshots by digest, or null: what a publication keeps in the bucket's sources/. */
export function snapshotBytes(dataDir: string): (sha256: string) => Promise<Uint8Array | null> {
  const store = new SnapshotStore(dataDir, { readOnly: true });
  return (sha256) => store.read(sha256).catch(() => null);
}
