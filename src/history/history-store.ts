import * as z from 'zod';
import { errors } from '../errors.ts';
import { gunzip, gzipDeterministic } from '../release/gzip.ts';
import type { Bucket } from '../storage/bucket.ts';
import { sha256Hex } from '../util/digests.ts';
import { parseHistory, renderHistory } from './history-file.ts';
import { importRecordSchema, type ImportRecord } from './history-imports.ts';
import { emptyHistory, type PriceHistory } from './price-history.ts';

/** The history beside the releases: its file, and a small manifest naming the file's SHA-256 (written last). */
export const HISTORY_KEY = 'history/history.json.gz';
export const HISTORY_MANIFEST_KEY = 'history/manifest.json';

const manifestSchema = z.object({
  file: z.literal('history.json.gz'),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  size: z.number().int().nonnegative(),
  release: z.string().nullable(),
  products: z.number().int().nonnegative(),
});
export type HistoryManifest = z.infer<typeof manifestSchema>;

/** The tags of the history's two objects as a writer read them: its write replaces only those (compare-and-swap). */
export interface HistoryTags {
  manifest: string | null;
  file: string | null;
}

/** The history as read for an update: the history, its manifest, and the tags its write compares against. */
export interface HistoryForUpdate {
  history: PriceHistory;
  manifest: HistoryManifest | null;
  tags: HistoryTags;
}

/** The history's manifest, or null when the bucket has no history yet. */
export async function readHistoryManifest(bucket: Bucket): Promise<HistoryManifest | null> {
  const bytes = await bucket.get(HISTORY_MANIFEST_KEY);
  return bytes ? parseManifest(bucket, bytes) : null;
}

function parseManifest(bucket: Bucket, bytes: Buffer): HistoryManifest {
  try {
    return manifestSchema.parse(JSON.parse(bytes.toString('utf8')));
  } catch (error) {
    throw errors.historyUnreadable(`${bucket.description}${HISTORY_MANIFEST_KEY}`, (error as Error).message.split('\n')[0]!);
  }
}

/** The history's manifest with its tag: what a writer reads first, to learn whether anything is to be done. */
export async function readHistoryManifestForUpdate(bucket: Bucket): Promise<{ manifest: HistoryManifest | null; tag: string | null }> {
  const object = await bucket.getTagged(HISTORY_MANIFEST_KEY);
  return object ? { manifest: parseManifest(bucket, object.bytes), tag: object.tag } : { manifest: null, tag: null };
}

/** The whole history for an update, with the tags `writeHistory` compares against. */
export async function readHistoryForUpdate(
  bucket: Bucket,
  known?: { manifest: HistoryManifest | null; tag: string | null },
): Promise<HistoryForUpdate> {
  const { manifest, tag } = known ?? (await readHistoryManifestForUpdate(bucket));
  if (!manifest) {
    // No manifest, but maybe a file a write cut short left: its tag, so the first write replaces it knowingly.
    const orphan = await bucket.getTagged(HISTORY_KEY);
    return { history: emptyHistory(), manifest: null, tags: { manifest: null, file: orphan?.tag ?? null } };
  }
  const file = await bucket.getTagged(HISTORY_KEY);
  return { history: checkedHistory(bucket, manifest, file?.bytes ?? null), manifest, tags: { manifest: tag, file: file?.tag ?? null } };
}

/**
 * The bucket's history, checked against its manifest (read here unless the caller has just read
 * it); an empty one when the bucket has none yet.
 */
export async function readHistory(
  bucket: Bucket,
  known?: HistoryManifest | null,
): Promise<{ history: PriceHistory; manifest: HistoryManifest | null }> {
  const manifest = known === undefined ? await readHistoryManifest(bucket) : known;
  if (!manifest) return { history: emptyHistory(), manifest: null };
  return { history: checkedHistory(bucket, manifest, await bucket.get(HISTORY_KEY)), manifest };
}

/**
 * The history file's bytes, checked against its manifest but not parsed: for a reader that parses
 * it elsewhere (the catalogue, in a process of its own). Null when there is no history yet.
 */
export async function readHistoryFile(bucket: Bucket, manifest: HistoryManifest | null): Promise<Buffer | null> {
  return manifest ? checkedHistoryFile(bucket, manifest, await bucket.get(HISTORY_KEY)) : null;
}

/** The history file checked against its manifest and parsed. */
function checkedHistory(bucket: Bucket, manifest: HistoryManifest, file: Buffer | null): PriceHistory {
  return parseHistoryFile(checkedHistoryFile(bucket, manifest, file), `${bucket.description}${HISTORY_KEY}`);
}

/** The history file's bytes, if they are what its manifest names. */
function checkedHistoryFile(bucket: Bucket, manifest: HistoryManifest, file: Buffer | null): Buffer {
  const where = `${bucket.description}${HISTORY_KEY}`;
  if (!file) throw errors.historyUnreadable(where, 'the manifest names it, but it is missing');
  if (sha256Hex(file) !== manifest.sha256)
    throw errors.historyUnreadable(where, `its SHA-256 is not the ${manifest.sha256} its manifest names`);
  return file;
}

/** A history file's bytes (gzip) parsed; `where` names it in the error when they do not hold a history. */
export function parseHistoryFile(file: Buffer, where: string): PriceHistory {
  try {
    return parseHistory(gunzip(file));
  } catch (error) {
    throw errors.historyUnreadable(where, (error as Error).message.split('\n')[0]!);
  }
}

/**
 * Writes the history, then its manifest, each only if it is still what the writer read (`tags`):
 * another writer's change is never overwritten (`bucket_changed`). A reader sees the old pair or
 * the new one (the digest tells a mix).
 */
export async function writeHistory(bucket: Bucket, history: PriceHistory, tags: HistoryTags): Promise<HistoryManifest> {
  const file = gzipDeterministic(renderHistory(history));
  const manifest: HistoryManifest = {
    file: 'history.json.gz',
    sha256: sha256Hex(file),
    size: file.length,
    release: history.release,
    products: history.products.length,
  };
  const manifestBytes = Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`);
  await writeUnchanged(bucket, HISTORY_KEY, file, 'application/gzip', tags.file);
  await writeUnchanged(bucket, HISTORY_MANIFEST_KEY, manifestBytes, 'application/json', tags.manifest);
  return manifest;
}

async function writeUnchanged(bucket: Bucket, key: string, bytes: Uint8Array, contentType: string, tag: string | null): Promise<void> {
  if ((await bucket.putIfUnchanged(key, bytes, contentType, tag)) === 'conflict')
    throw errors.bucketChanged(`${bucket.description}${key}`, 'another writer changed the price history meanwhile; run again');
}

/** Where each imported document's record lies, by the SHA-256 of its bytes. */
export const HISTORY_IMPORTS_PREFIX = 'history/imports/';
const importKey = (sha256: string) => `${HISTORY_IMPORTS_PREFIX}${sha256}.json.gz`;

/** The SHA-256 of every document imported into the history: the records' keys, none of them read. */
export async function importedDigests(bucket: Bucket): Promise<Set<string>> {
  const keys = await bucket.list(HISTORY_IMPORTS_PREFIX);
  return new Set(keys.map((key) => key.slice(HISTORY_IMPORTS_PREFIX.length).replace(/\.json\.gz$/, '')));
}

/** The records of every document imported into the history (the archived lists), oldest import first. */
export async function readImportRecords(bucket: Bucket): Promise<ImportRecord[]> {
  const records: ImportRecord[] = [];
  for (const key of await bucket.list(HISTORY_IMPORTS_PREFIX)) {
    const bytes = await bucket.get(key);
    if (!bytes) continue;
    try {
      records.push(importRecordSchema.parse(JSON.parse(gunzip(bytes).toString('utf8'))) as ImportRecord);
    } catch (error) {
      throw errors.historyUnreadable(`${bucket.description}${key}`, (error as Error).message.split('\n')[0]!);
    }
  }
  return records.sort((a, b) => a.importedAt.localeCompare(b.importedAt) || a.sha256.localeCompare(b.sha256));
}

export async function writeImportRecord(bucket: Bucket, record: ImportRecord): Promise<void> {
  await bucket.put(importKey(record.sha256), gzipDeterministic(Buffer.from(`${JSON.stringify(record)}\n`)), 'application/gzip');
}

export async function deleteImportRecord(bucket: Bucket, sha256: string): Promise<void> {
  await bucket.delete([importKey(sha256)]);
}
