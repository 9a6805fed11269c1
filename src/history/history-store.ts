import * as z from 'zod';
import { errors } from '../errors.ts';
import { gunzip, gzipDeterministic } from '../release/gzip.ts';
import type { Bucket } from '../storage/bucket.ts';
import { createOnce } from '../storage/deferred-deletions.ts';
import { sha256Hex } from '../util/digests.ts';
import { parseHistory, renderHistory } from './history-file.ts';
import { importRecordSchema, type ImportRecord } from './history-imports.ts';
import { emptyHistory, type PriceHistory } from './price-history.ts';

/**
 * The history beside the releases: a small manifest (the pointer, swapped by compare-and-swap)
 * naming its file, which is created once under a name of its content (`history/history-<sha256>.json.gz`),
 * and the import records it includes. Buckets written before kept one file, `history/history.json.gz`,
 * rewritten in place: still read, replaced by the first write.
 */
export const HISTORY_MANIFEST_KEY = 'history/manifest.json';
export const HISTORY_PREFIX = 'history/';
/** The keys of history files: the legacy one, and those named by content (a suffix when a marked one is not reused). */
const historyFileName = (sha256: string, suffix: string | null) => `history-${sha256}${suffix ? `-${suffix}` : ''}.json.gz`;
export const HISTORY_FILE_KEY = /^history\/history(-[0-9a-f]{64}(-[0-9a-f]{8})?)?\.json\.gz$/;

const manifestSchema = z.object({
  file: z.string().regex(/^history(-[0-9a-f]{64}(-[0-9a-f]{8})?)?\.json\.gz$/),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  size: z.number().int().nonnegative(),
  release: z.string().nullable(),
  products: z.number().int().nonnegative(),
  /** The keys of the import records the history includes; absent in a bucket written before (then: every record there). */
  imports: z.array(z.string().regex(/^history\/imports\/[0-9a-f]{64}(\.[0-9a-f]{16}(-[0-9a-f]{8})?)?\.json\.gz$/)).optional(),
});
export type HistoryManifest = z.infer<typeof manifestSchema>;

/** The key of the file a history manifest names. */
export const historyFileKey = (manifest: Pick<HistoryManifest, 'file'>) => `${HISTORY_PREFIX}${manifest.file}`;

/** The tag of the history's manifest as a writer read it: its write replaces only that (compare-and-swap). */
export interface HistoryTags {
  manifest: string | null;
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
  if (!manifest) return { history: emptyHistory(), manifest: null, tags: { manifest: null } };
  const file = await bucket.get(historyFileKey(manifest));
  return { history: checkedHistory(bucket, manifest, file), manifest, tags: { manifest: tag } };
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
  return { history: checkedHistory(bucket, manifest, await bucket.get(historyFileKey(manifest))), manifest };
}

/**
 * The history file's bytes, checked against its manifest but not parsed: for a reader that parses
 * it elsewhere (the catalogue, in a process of its own). Null when there is no history yet.
 */
export async function readHistoryFile(bucket: Bucket, manifest: HistoryManifest | null): Promise<Buffer | null> {
  return manifest ? checkedHistoryFile(bucket, manifest, await bucket.get(historyFileKey(manifest))) : null;
}

/** The history file checked against its manifest and parsed. */
function checkedHistory(bucket: Bucket, manifest: HistoryManifest, file: Buffer | null): PriceHistory {
  return parseHistoryFile(checkedHistoryFile(bucket, manifest, file), `${bucket.description}${historyFileKey(manifest)}`);
}

/** The history file's bytes, if they are what its manifest names. */
function checkedHistoryFile(bucket: Bucket, manifest: HistoryManifest, file: Buffer | null): Buffer {
  const where = `${bucket.description}${historyFileKey(manifest)}`;
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
 * Writes the history: its file created once under its content's name, then its manifest swapped
 * only if it is still the one the writer read (`tags`), naming the file and `imports` (the
 * records it includes). Another writer's change is never overwritten (`bucket_changed`), and a
 * writer refused leaves only a file no manifest names, which deferred deletion removes later.
 */
export async function writeHistory(bucket: Bucket, history: PriceHistory, tags: HistoryTags, imports: string[]): Promise<HistoryManifest> {
  const file = gzipDeterministic(renderHistory(history));
  const sha256 = sha256Hex(file);
  const manifest: HistoryManifest = {
    file: historyFileName(sha256, null),
    sha256,
    size: file.length,
    release: history.release,
    products: history.products.length,
    imports: [...new Set(imports)].sort(),
  };
  const key = await createOnce(bucket, historyFileKey(manifest), file, 'application/gzip', (suffix) =>
    historyFileKey({ file: historyFileName(sha256, suffix) }),
  );
  manifest.file = key.slice(HISTORY_PREFIX.length);
  const manifestBytes = Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`);
  if ((await bucket.putIfUnchanged(HISTORY_MANIFEST_KEY, manifestBytes, 'application/json', tags.manifest)) === 'conflict')
    throw errors.bucketChanged(
      `${bucket.description}${HISTORY_MANIFEST_KEY}`,
      'another writer changed the price history meanwhile; run again',
    );
  return manifest;
}

/** Where each imported document's record lies: by the SHA-256 of the document's bytes, then of the record's. */
export const HISTORY_IMPORTS_PREFIX = 'history/imports/';
const LEGACY_IMPORT_KEY = /^history\/imports\/[0-9a-f]{64}\.json\.gz$/;

/** The keys of the import records the history includes: those its manifest names (every record there, in a bucket written before). */
export async function importKeys(bucket: Bucket, manifest: HistoryManifest | null): Promise<string[]> {
  if (manifest?.imports) return manifest.imports;
  if (!manifest) return [];
  return (await bucket.list(HISTORY_IMPORTS_PREFIX)).filter((key) => LEGACY_IMPORT_KEY.test(key));
}

/** The SHA-256 of a document an import record's key names. */
export const digestOfImportKey = (key: string) => key.slice(HISTORY_IMPORTS_PREFIX.length, HISTORY_IMPORTS_PREFIX.length + 64);

/** The records of every document imported into the history (the archived lists), oldest import first, each with its key. */
export async function readImportRecords(bucket: Bucket, keys: string[]): Promise<(ImportRecord & { key: string })[]> {
  const records: (ImportRecord & { key: string })[] = [];
  for (const key of keys) {
    const bytes = await bucket.get(key);
    if (!bytes) throw errors.historyUnreadable(`${bucket.description}${key}`, 'the history names this import record, but it is missing');
    try {
      records.push({ ...(importRecordSchema.parse(JSON.parse(gunzip(bytes).toString('utf8'))) as ImportRecord), key });
    } catch (error) {
      throw errors.historyUnreadable(`${bucket.description}${key}`, (error as Error).message.split('\n')[0]!);
    }
  }
  return records.sort((a, b) => a.importedAt.localeCompare(b.importedAt) || a.sha256.localeCompare(b.sha256));
}

/** Creates an import record under a key of its own content (two imports of one document never meet); returns the key. */
export async function writeImportRecord(bucket: Bucket, record: ImportRecord): Promise<string> {
  const bytes = gzipDeterministic(Buffer.from(`${JSON.stringify(record)}\n`));
  const name = `${HISTORY_IMPORTS_PREFIX}${record.sha256}.${sha256Hex(bytes).slice(0, 16)}`;
  return createOnce(bucket, `${name}.json.gz`, bytes, 'application/gzip', (suffix) => `${name}-${suffix}.json.gz`);
}
