import { errors } from '../errors.ts';
import type { Bucket } from '../storage/bucket.ts';
import { createOnce, markCovers, marksOf } from '../storage/deferred-deletions.ts';
import { sha256Hex, sha256OfStream } from '../util/digests.ts';

/**
 * The authority's documents kept with the releases, by content: `sources/<sha256>.<ext>`. Every
 * document a published release or a history import was built from is there (written before the
 * switch, read back), so that anyone holding the bucket can build any kept release again, after
 * the authority has taken the document down and the machine that fetched it is gone.
 */
export const SOURCES_PREFIX = 'sources/';

/** A document as a release's provenance or an import record names it. */
export interface SourceRef {
  sha256: string;
  /** Its file name or address: only its extension is kept in the key. */
  name: string;
}

/** `sources/<sha256>.pdf`: the extension of the document's name when it has a plain one, else none. */
export function sourceKey(ref: SourceRef): string {
  const ext = /\.([a-z0-9]{1,5})(?:[?#].*)?$/i.exec(ref.name.split('/').pop() ?? '')?.[1]?.toLowerCase();
  return `${SOURCES_PREFIX}${ref.sha256}${ext ? `.${ext}` : ''}`;
}

/** The digest a key of sources/ names (`-<suffix>` when a marked copy was not reused), or null for another key. */
export function digestOfSourceKey(key: string): string | null {
  return /^sources\/([0-9a-f]{64})(?:-[0-9a-f]{8})?(?:\.[a-z0-9]{1,5})?$/.exec(key)?.[1] ?? null;
}

/** The documents of `refs` the bucket lacks (by digest), given its keys under sources/. */
export function missingSources(refs: SourceRef[], keys: string[]): SourceRef[] {
  const present = new Set(keys.map(digestOfSourceKey));
  return refs.filter((ref, i) => !present.has(ref.sha256) && refs.findIndex((other) => other.sha256 === ref.sha256) === i);
}

/**
 * Stores in the bucket every document of `refs` it lacks (or holds only marked for removal), from
 * `bytesOf` (the run's own documents, the data dir's snapshots), each created once and read back.
 * Returns those stored, and those whose bytes were not at hand (a release then cannot be built
 * again from the bucket alone: said).
 */
export async function keepSources(
  bucket: Bucket,
  refs: SourceRef[],
  bytesOf: (sha256: string) => Promise<Uint8Array | null>,
): Promise<{ stored: SourceRef[]; missing: SourceRef[] }> {
  const marks = await marksOf(bucket);
  // A copy marked for removal may be deleted by a sweep under way: it does not count as kept.
  const kept = (await bucket.list(SOURCES_PREFIX)).filter((key) => !marks.some((mark) => markCovers(mark, key)));
  const lacking = missingSources(refs, kept);
  const stored: SourceRef[] = [];
  const missing: SourceRef[] = [];
  for (const ref of lacking) {
    const bytes = await bytesOf(ref.sha256);
    if (!bytes || sha256Hex(bytes) !== ref.sha256) {
      missing.push(ref);
      continue;
    }
    const named = sourceKey(ref);
    const key = await createOnce(bucket, named, bytes, 'application/octet-stream', (suffix) =>
      named.replace(ref.sha256, `${ref.sha256}-${suffix}`),
    );
    // Read back as a stream: a document of tens of MB is checked without a second copy in memory.
    const back = await bucket.open(key);
    if (!back || (await sha256OfStream(back.body)) !== ref.sha256)
      throw errors.bucketFailed(`${bucket.description}${key}`, 'what the bucket holds is not the document that was written');
    stored.push(ref);
  }
  return { stored, missing };
}

/** A document's bytes from the bucket by its digest, checked (the first whole copy); null when the bucket does not keep it. */
export async function readSource(bucket: Bucket, sha256: string): Promise<Buffer | null> {
  for (const key of (await bucket.list(`${SOURCES_PREFIX}${sha256}`)).filter((candidate) => digestOfSourceKey(candidate) === sha256)) {
    const bytes = await bucket.get(key);
    if (bytes && sha256Hex(bytes) === sha256) return bytes;
  }
  return null;
}
