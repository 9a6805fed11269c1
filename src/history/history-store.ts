import * as z from 'zod';
import { errors } from '../errors.ts';
import { gunzip, gzipDeterministic } from '../release/gzip.ts';
import type { Bucket } from '../storage/bucket.ts';
import { sha256Hex } from '../util/digests.ts';
import { parseHistory, renderHistory } from './history-file.ts';
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

/** The history's manifest, or null when the bucket has no history yet. */
export async function readHistoryManifest(bucket: Bucket): Promise<HistoryManifest | null> {
  const bytes = await bucket.get(HISTORY_MANIFEST_KEY);
  if (!bytes) return null;
  try {
    return manifestSchema.parse(JSON.parse(bytes.toString('utf8')));
  } catch (error) {
    throw errors.historyUnreadable(`${bucket.description}${HISTORY_MANIFEST_KEY}`, (error as Error).message.split('\n')[0]!);
  }
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
  const where = `${bucket.description}${HISTORY_KEY}`;
  const file = await bucket.get(HISTORY_KEY);
  if (!file) throw errors.historyUnreadable(where, 'the manifest names it, but it is missing');
  if (sha256Hex(file) !== manifest.sha256)
    throw errors.historyUnreadable(where, `its SHA-256 is not the ${manifest.sha256} its manifest names`);
  try {
    return { history: parseHistory(gunzip(file)), manifest };
  } catch (error) {
    throw errors.historyUnreadable(where, (error as Error).message.split('\n')[0]!);
  }
}

/** Writes the history, then its manifest: a reader sees the old pair or the new one (the digest tells a mix). */
export async function writeHistory(bucket: Bucket, history: PriceHistory): Promise<HistoryManifest> {
  const file = gzipDeterministic(renderHistory(history));
  const manifest: HistoryManifest = {
    file: 'history.json.gz',
    sha256: sha256Hex(file),
    size: file.length,
    release: history.release,
    products: history.products.length,
  };
  await bucket.put(HISTORY_KEY, file, 'application/gzip');
  await bucket.put(HISTORY_MANIFEST_KEY, Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`), 'application/json');
  return manifest;
}
