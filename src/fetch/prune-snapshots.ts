import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { DocumentsState } from './retain-documents.ts';
import type { SnapshotStore, SourcesState } from './snapshot-store.ts';

const SNAPSHOT_FILE = /^([0-9a-f]{64})\.(pdf|xml|json)$/;

/**
 * The snapshot files to remove: those whose digest is not `needed`. A file of another name (a
 * temporary of a write under way, anything an operator put there) is never touched. Pure.
 */
export function snapshotsToPrune(files: readonly string[], needed: ReadonlySet<string>): string[] {
  return files.filter((name) => {
    const match = SNAPSHOT_FILE.exec(name);
    return match !== null && !needed.has(match[1]!);
  });
}

/**
 * Removes the snapshots no one needs any more (docs/operations.md, "The data dir"): `needed` is
 * every digest a kept release names, in the bucket or among the data dir's copies, and every
 * document the store's own state keeps (the last good snapshot of each address, the lists and
 * notices the next builds read). Returns the digests removed, each once.
 */
export async function pruneSnapshots(store: SnapshotStore, needed: ReadonlySet<string>): Promise<string[]> {
  const files = await readdir(store.dir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [] as string[];
    throw error;
  });
  const doomed = snapshotsToPrune(files, needed);
  // The bytes first, their description last: a run stopped between leaves a description of nothing, never bytes unexplained.
  doomed.sort((a, b) => Number(a.endsWith('.json')) - Number(b.endsWith('.json')));
  for (const name of doomed) await rm(join(store.dir, name), { force: true });
  return [...new Set(doomed.map((name) => name.slice(0, 64)))];
}

/**
 * Every digest the store's own state keeps (pure): the lists and notices the next builds read
 * (documents.json), and for an address given as it is (`--source-url`, no `kind`) its last good
 * snapshot and those waiting for their day. An address found through the pages is kept only as
 * documents.json keeps its document: the authority links every new list at a new address, so one
 * snapshot per address ever linked would grow without end, and what the builds need of them is
 * what documents.json says (the list in force of each category and those dated later).
 */
export function keptDigests(state: SourcesState, documents: DocumentsState): Set<string> {
  const kept = new Set<string>();
  for (const source of Object.values(state)) {
    if (source.kind) continue;
    kept.add(source.sha256);
    for (const earlier of source.kept ?? []) kept.add(earlier.sha256);
  }
  for (const list of Object.values(documents.lists)) for (const doc of list) kept.add(doc.sha256);
  for (const doc of documents.notices) kept.add(doc.sha256);
  return kept;
}

/** keptDigests of the store's state files. */
export async function keptByState(store: SnapshotStore): Promise<Set<string>> {
  const [state, documents] = await Promise.all([store.readState(), store.readDocuments()]);
  return keptDigests(state, documents);
}
