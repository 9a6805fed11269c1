import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Manifest } from '../release/manifest.ts';
import { sha256Hex } from '../util/digests.ts';
import { writeFileAtomic } from '../util/durable-write.ts';

/** Where a release folder keeps the documents it was built from: `<folder>/sources/<sha256>`. */
export const FOLDER_SOURCES = 'sources';

type BytesOf = (sha256: string) => Promise<Uint8Array | null>;

/**
 * Copies the documents a release was built from into its folder (`sources/<sha256>`), from the
 * data dir's snapshots: a folder that travels (a CI artifact, another machine) carries them, and a
 * publication from it keeps them in the bucket's sources/, so the bucket alone rebuilds the release.
 * Returns the documents it could not find.
 */
export async function keepSourcesInFolder(folder: string, manifest: Manifest, bytesOf: BytesOf): Promise<string[]> {
  const missing: string[] = [];
  const dir = join(folder, FOLDER_SOURCES);
  await mkdir(dir, { recursive: true });
  for (const doc of manifest.provenance?.documents ?? []) {
    const bytes = await bytesOf(doc.sha256);
    if (!bytes || sha256Hex(bytes) !== doc.sha256) missing.push(doc.url);
    else await writeFileAtomic(join(dir, doc.sha256), bytes);
  }
  return missing;
}

/** A folder of documents by digest (a release folder's sources/, or `publish --sources <dir>`): each checked against its name. */
export function folderSourceBytes(dir: string): BytesOf {
  return async (sha256) => {
    if (!/^[0-9a-f]{64}$/.test(sha256)) return null;
    const bytes = await readFile(join(dir, sha256)).catch(() => null);
    return bytes && sha256Hex(bytes) === sha256 ? bytes : null;
  };
}

/** The first of several places that has a document whole. */
export function firstOf(...places: BytesOf[]): BytesOf {
  return async (sha256) => {
    for (const place of places) {
      const bytes = await place(sha256);
      if (bytes) return bytes;
    }
    return null;
  };
}

/** The documents of a release none of the places holds whole: what a publication would fail to keep. */
export async function documentsNotAtHand(manifest: Manifest, bytesOf: BytesOf): Promise<string[]> {
  const missing: string[] = [];
  for (const doc of manifest.provenance?.documents ?? [])
    if (!(await bytesOf(doc.sha256))) missing.push(`${doc.url} (sha256 ${doc.sha256.slice(0, 12)}…)`);
  return missing;
}
