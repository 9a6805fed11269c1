import * as z from 'zod';
import { errors } from '../errors.ts';
import { gunzip, gzipDeterministic } from '../release/gzip.ts';
import type { Bucket } from '../storage/bucket.ts';
import { createOnce } from '../storage/deferred-deletions.ts';
import { sha256Hex } from '../util/digests.ts';
import { parseHistory, renderHistory } from './history-file.ts';
import { importRecordSchema, type ImportRecord } from './history-imports.ts';
import {
  emptyHead,
  eventOf,
  headOfHistory,
  parseHead,
  parseSegment,
  renderHead,
  renderSegment,
  replay,
  type HistoryHead,
  type ReleaseEvent,
} from './history-log.ts';
import { emptyHistory, type PriceHistory, type RecordedRelease } from './price-history.ts';

/**
 * The history beside the releases, as a log (history-log.ts): a small manifest (the pointer,
 * swapped by compare-and-swap) naming a checkpoint (the whole history at one point, today's file
 * shape), the head it starts from, the segments of release events recorded since, the head after
 * them, and the import records the history includes. Every file is created once under a name of
 * its content (`history/<kind>-<sha256>.json.gz`). A release run reads and writes the head and the
 * open segment only; an import, a removal and a compaction write a new checkpoint. Buckets written
 * before (layout 1: the manifest named one file, the whole history) are still read; their first
 * write makes that history the checkpoint.
 */
export const HISTORY_MANIFEST_KEY = 'history/manifest.json';
export const HISTORY_PREFIX = 'history/';

type FileKind = 'history' | 'head' | 'segment';
const fileName = (kind: FileKind, sha256: string, suffix: string | null) => `${kind}-${sha256}${suffix ? `-${suffix}` : ''}.json.gz`;
/**
 * The keys of the history's files: the legacy one (`history.json.gz`), and those named by content
 * (a suffix when a marked one is not reused).
 */
export const HISTORY_FILE_KEY = /^history\/(history|head|segment)(-[0-9a-f]{64}(-[0-9a-f]{8})?)?\.json\.gz$/;

/**
 * What bounds the log: a segment holds at most `segmentReleases` releases and is sealed once its
 * file reaches `segmentBytes` (what a release run rewrites); past `maxSegments` segments the writer
 * folds them into a new checkpoint (what a reader reads is a bounded count of objects).
 */
export interface LogLimits {
  segmentReleases: number;
  segmentBytes: number;
  maxSegments: number;
}
export const LOG_LIMITS: LogLimits = { segmentReleases: 120, segmentBytes: 256 * 1024, maxSegments: 16 };

const SHA256 = z.string().regex(/^[0-9a-f]{64}$/);
const fileRef = (kind: FileKind) =>
  z.strictObject({
    file: z.string().regex(new RegExp(`^${kind}(-[0-9a-f]{64}(-[0-9a-f]{8})?)?\\.json\\.gz$`)),
    sha256: SHA256,
    size: z.number().int().nonnegative(),
  });
const importKey = z.string().regex(/^history\/imports\/[0-9a-f]{64}(\.[0-9a-f]{16}(-[0-9a-f]{8})?)?\.json\.gz$/);

/** Layout 1 (tariff 1.0.0 and before): one file, the whole history. */
const legacySchema = z.object({
  file: z.string().regex(/^history(-[0-9a-f]{64}(-[0-9a-f]{8})?)?\.json\.gz$/),
  sha256: SHA256,
  size: z.number().int().nonnegative(),
  release: z.string().nullable(),
  products: z.number().int().nonnegative(),
  /** The keys of the import records the history includes; absent in a bucket written before (then: every record there). */
  imports: z.array(importKey).optional(),
});

const logSchema = z.object({
  layout: z.literal(2),
  release: z.string().nullable(),
  products: z.number().int().nonnegative(),
  /** The whole history at the log's start; null when it starts from nothing. */
  checkpoint: fileRef('history').nullable(),
  /** The head at the checkpoint, which the first event follows. */
  base: fileRef('head'),
  segments: z.array(fileRef('segment').extend({ releases: z.number().int().positive() })),
  /** The head after the last event: what the next release run compares its release with. */
  head: fileRef('head'),
  imports: z.array(importKey),
});

export type FileRef = z.infer<ReturnType<typeof fileRef>>;
export type SegmentRef = FileRef & { releases: number };

/** The history's manifest, of either layout, as one shape: layout 1 has a checkpoint alone, and may lack `imports`. */
export interface HistoryManifest {
  layout: 1 | 2;
  release: string | null;
  products: number;
  checkpoint: FileRef | null;
  base: FileRef | null;
  segments: SegmentRef[];
  head: FileRef | null;
  imports?: string[];
}

function normalised(value: unknown): HistoryManifest {
  if (typeof value === 'object' && value !== null && 'layout' in value) return logSchema.parse(value);
  const { file, sha256, size, release, products, imports } = legacySchema.parse(value);
  return { layout: 1, release, products, checkpoint: { file, sha256, size }, base: null, segments: [], head: null, imports };
}

const keyOf = (ref: Pick<FileRef, 'file'>) => `${HISTORY_PREFIX}${ref.file}`;

/** The keys of every file a history manifest names. */
export const historyFileKeys = (manifest: HistoryManifest): string[] =>
  [manifest.checkpoint, manifest.base, ...manifest.segments, manifest.head].filter((ref) => ref !== null).map(keyOf);

/** What tells one history from another without reading it: its files' digests, in order. */
export const historyIdentity = (manifest: HistoryManifest | null): string | null =>
  manifest
    ? sha256Hex(
        Buffer.from([manifest.checkpoint, manifest.base, ...manifest.segments, manifest.head].map((ref) => ref?.sha256 ?? '-').join(' ')),
      )
    : null;

/** The tag of the history's manifest as a writer read it: its write replaces only that (compare-and-swap). */
export interface HistoryTags {
  manifest: string | null;
}

/** The whole history as read for an update: the history, the head after it, its manifest, and the tags its write compares against. */
export interface HistoryForUpdate {
  history: PriceHistory;
  head: HistoryHead;
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
    return normalised(JSON.parse(bytes.toString('utf8')));
  } catch (error) {
    throw errors.historyUnreadable(`${bucket.description}${HISTORY_MANIFEST_KEY}`, (error as Error).message.split('\n')[0]!);
  }
}

/** The history's manifest with its tag: what a writer reads first, to learn whether anything is to be done. */
export async function readHistoryManifestForUpdate(bucket: Bucket): Promise<{ manifest: HistoryManifest | null; tag: string | null }> {
  const object = await bucket.getTagged(HISTORY_MANIFEST_KEY);
  return object ? { manifest: parseManifest(bucket, object.bytes), tag: object.tag } : { manifest: null, tag: null };
}

/** One file of the history, as the bucket holds it (gzip, checked against its manifest), and where. */
export interface HistoryPart {
  bytes: Uint8Array;
  where: string;
}

/** The files a reader replays the history from, checked against their manifest but not parsed. */
export interface HistoryParts {
  checkpoint: HistoryPart | null;
  base: HistoryPart | null;
  segments: HistoryPart[];
}

/**
 * The history's files, checked against their manifest but not parsed: for a reader that parses
 * them elsewhere (the catalogue, in a process of its own), and for `verify`. Null when there is no
 * history yet.
 */
export async function readHistoryParts(bucket: Bucket, manifest: HistoryManifest | null): Promise<HistoryParts | null> {
  if (!manifest) return null;
  const read = async (ref: FileRef | null) => (ref ? readFilePart(bucket, ref) : null);
  const segments: HistoryPart[] = [];
  for (const ref of manifest.segments) segments.push(await readFilePart(bucket, ref));
  return { checkpoint: await read(manifest.checkpoint), base: await read(manifest.base), segments };
}

/** The history and the head after it, from its files: the checkpoint, then every event replayed on it. */
export function historyOfParts(parts: HistoryParts | null): { history: PriceHistory; head: HistoryHead } {
  if (!parts) return { history: emptyHistory(), head: emptyHead() };
  const history = parts.checkpoint ? parseHistoryFile(parts.checkpoint.bytes, parts.checkpoint.where) : emptyHistory();
  const head = parts.base ? parsed(parts.base, parseHead) : headOfHistory(history);
  return replay(
    history,
    head,
    parts.segments.flatMap((part) => parsed(part, parseSegment)),
  );
}

function parsed<T>(part: HistoryPart, parse: (bytes: Uint8Array) => T): T {
  try {
    return parse(gunzip(part.bytes));
  } catch (error) {
    throw errors.historyUnreadable(part.where, (error as Error).message.split('\n')[0]!);
  }
}

/** The whole history for an update, with the head after it and the tags the write compares against. */
export async function readHistoryForUpdate(bucket: Bucket): Promise<HistoryForUpdate> {
  const { manifest, tag } = await readHistoryManifestForUpdate(bucket);
  const { history, head } = historyOfParts(await readHistoryParts(bucket, manifest));
  return { history, head, manifest, tags: { manifest: tag } };
}

/**
 * The bucket's history (its manifest read here unless the caller has just read it); an empty one
 * when the bucket has none yet.
 */
export async function readHistory(
  bucket: Bucket,
  known?: HistoryManifest | null,
): Promise<{ history: PriceHistory; manifest: HistoryManifest | null }> {
  const manifest = known === undefined ? await readHistoryManifest(bucket) : known;
  return { history: historyOfParts(await readHistoryParts(bucket, manifest)).history, manifest };
}

/** A file of the history read and checked against its manifest, with where it is. */
async function readFilePart(bucket: Bucket, ref: FileRef): Promise<HistoryPart> {
  return { bytes: await checkedFile(bucket, ref), where: `${bucket.description}${keyOf(ref)}` };
}

/** A file of the history read, checked and parsed. */
async function readPart<T>(bucket: Bucket, ref: FileRef, parse: (bytes: Uint8Array) => T): Promise<T> {
  return parsed(await readFilePart(bucket, ref), parse);
}

/** A file's bytes, if they are what its manifest names. */
async function checkedFile(bucket: Bucket, ref: FileRef): Promise<Buffer> {
  const where = `${bucket.description}${keyOf(ref)}`;
  const file = await bucket.get(keyOf(ref));
  if (!file) throw errors.historyUnreadable(where, 'the manifest names it, but it is missing');
  if (sha256Hex(file) !== ref.sha256) throw errors.historyUnreadable(where, `its SHA-256 is not the ${ref.sha256} its manifest names`);
  return file;
}

/** A history file's bytes (gzip) parsed; `where` names it in the error when they do not hold a history. */
export function parseHistoryFile(file: Uint8Array, where: string): PriceHistory {
  try {
    return parseHistory(gunzip(file));
  } catch (error) {
    throw errors.historyUnreadable(where, (error as Error).message.split('\n')[0]!);
  }
}

/** Creates a file of the history once, under its content's name. */
async function createFile(bucket: Bucket, kind: FileKind, content: Buffer): Promise<FileRef> {
  const file = gzipDeterministic(content);
  const sha256 = sha256Hex(file);
  const key = await createOnce(bucket, keyOf({ file: fileName(kind, sha256, null) }), file, 'application/gzip', (suffix) =>
    keyOf({ file: fileName(kind, sha256, suffix) }),
  );
  return { file: key.slice(HISTORY_PREFIX.length), sha256, size: file.length };
}

/**
 * Swaps the manifest only if it is still the one the writer read (`tags`). Another writer's change
 * is never overwritten (`bucket_changed`), and a writer refused leaves only files no manifest
 * names, which deferred deletion removes later.
 */
async function swapManifest(bucket: Bucket, manifest: HistoryManifest, tags: HistoryTags): Promise<HistoryManifest> {
  const { layout, release, products, checkpoint, base, segments, head, imports } = manifest;
  const bytes = Buffer.from(`${JSON.stringify({ layout, release, products, checkpoint, base, segments, head, imports }, null, 2)}\n`);
  if ((await bucket.putIfUnchanged(HISTORY_MANIFEST_KEY, bytes, 'application/json', tags.manifest)) === 'conflict')
    throw errors.bucketChanged(
      `${bucket.description}${HISTORY_MANIFEST_KEY}`,
      'another writer changed the price history meanwhile; run again',
    );
  return manifest;
}

/**
 * Writes the whole history as a new checkpoint, `head` its head (the last release recorded and
 * what it listed; every code of the history known), with no events after it, and `imports` (the
 * records it includes): what an import, a removal and a compaction do.
 */
export async function writeHistory(
  bucket: Bucket,
  history: PriceHistory,
  head: HistoryHead,
  tags: HistoryTags,
  imports: string[],
): Promise<HistoryManifest> {
  const checkpoint = await createFile(bucket, 'history', renderHistory(history));
  const known = { ...head, known: headOfHistory(history).known };
  const headRef = await createFile(bucket, 'head', renderHead(known));
  return swapManifest(
    bucket,
    {
      layout: 2,
      release: history.release,
      products: history.products.length,
      checkpoint,
      base: headRef,
      segments: [],
      head: headRef,
      imports: [...new Set(imports)].sort(),
    },
    tags,
  );
}

/**
 * Records releases (oldest first) after the history `known` names: each as an event in the open
 * segment (sealed past `limits`), then the head after them. What this
 * reads and writes is bounded by the products and a segment, not by the history's length; past
 * `limits.maxSegments` segments, the log is folded into a new checkpoint (the whole history read once). A
 * history of layout 1 is read whole once and becomes the log's checkpoint.
 */
export async function appendReleases(
  bucket: Bucket,
  known: { manifest: HistoryManifest | null; tag: string | null },
  releases: RecordedRelease[],
  limits: LogLimits = LOG_LIMITS,
): Promise<HistoryManifest> {
  const tags = { manifest: known.tag };
  const imports = await importKeys(bucket, known.manifest);
  let manifest = known.manifest;
  if (manifest && !manifest.head) {
    const { history } = await readHistory(bucket, manifest);
    const head = headOfHistory(history);
    const ref = await createFile(bucket, 'head', renderHead(head));
    manifest = { ...manifest, checkpoint: await createFile(bucket, 'history', renderHistory(history)), base: ref, head: ref };
  }
  let head = manifest?.head ? await readPart(bucket, manifest.head, parseHead) : emptyHead();
  const segments = [...(manifest?.segments ?? [])];
  const last = segments.at(-1);
  let open: ReleaseEvent[] = [];
  if (last && last.releases < limits.segmentReleases && last.size < limits.segmentBytes) {
    open = await readPart(bucket, last, parseSegment);
    segments.pop();
  }
  const before = head;
  const added: ReleaseEvent[] = [];
  for (const release of releases) {
    const next = eventOf(head, release);
    added.push(next.event);
    head = next.head;
  }
  const events = [...open, ...added];
  const chunks: ReleaseEvent[][] = [];
  for (let at = 0; at < events.length; at += limits.segmentReleases) chunks.push(events.slice(at, at + limits.segmentReleases));
  if (segments.length + chunks.length > limits.maxSegments) {
    // The log is long: its history, replayed once with the new releases, becomes the checkpoint.
    const whole = historyOfParts(await readHistoryParts(bucket, manifest));
    return writeHistory(bucket, replay(whole.history, before, added).history, head, tags, imports);
  }
  for (const chunk of chunks) segments.push({ ...(await createFile(bucket, 'segment', renderSegment(chunk))), releases: chunk.length });
  return swapManifest(
    bucket,
    {
      layout: 2,
      release: head.release,
      products: head.known.length,
      checkpoint: manifest?.checkpoint ?? null,
      base: manifest?.base ?? (await createFile(bucket, 'head', renderHead(emptyHead()))),
      segments,
      head: await createFile(bucket, 'head', renderHead(head)),
      imports: [...new Set(imports)].sort(),
    },
    tags,
  );
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
