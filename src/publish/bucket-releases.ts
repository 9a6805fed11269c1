import type { Dataset } from '../dataset/model.ts';
import { errors } from '../errors.ts';
import { openDatasetFile } from '../release/read-release.ts';
import { sha256Hex } from '../util/digests.ts';
import { FORMATS, holdsDigest, manifestSchema, renderManifest, type FileDigest, type Format, type Manifest } from '../release/manifest.ts';
import type { Bucket } from '../storage/bucket.ts';
import { markCovers, readMarks } from '../storage/deferred-deletions.ts';
import { checkSigningKey, nextCurrent, type Signing } from './current-signing.ts';
import { completeVersionsIn, CURRENT_KEY, RELEASES_PREFIX, releaseFileKey, releaseManifestKey } from './bucket-layout.ts';
import { jsonOrNull } from '../util/json-or-null.ts';

export interface ReleaseFiles {
  manifest: Manifest;
  files: Record<Format, Uint8Array>;
  /**
   * The version whose content these files hold, when the build found it unchanged: the release is
   * that one even if another zlib compressed it into other bytes (it is then not uploaded again).
   */
  sameContentAs?: string;
}

export interface PublishResult {
  /** repaired: the release was current already, but the bucket's files did not match it and were written again. */
  /** re-signed: the release stays current, its manifest signed again (renewed before it expires, or by a new key). */
  status: 'published' | 'already-current' | 'repaired' | 're-signed';
  version: string;
  previousVersion: string | null;
  pruned: string[];
  /** Incomplete versions a crashed run left, removed after the switch. */
  cleaned?: string[];
  /** Until when the current manifest's signature holds, when signed. */
  expires?: string;
  /** Why it was signed again, when re-signed. */
  resigned?: string;
  /** What was wrong, when repaired. */
  repaired?: string[];
  /** Damage to the previous current release that no intact copy could repair (it stays kept, damaged). */
  unrepaired?: string[];
}

/** Reads the current manifest of a bucket, or null when nothing was ever published. */
export async function readCurrentManifest(bucket: Bucket): Promise<Manifest | null> {
  return readManifestObject(bucket, CURRENT_KEY);
}

/** The current manifest with the tag a switch compares against (null tag: nothing published yet). */
export async function readCurrentForSwitch(bucket: Bucket): Promise<{ manifest: Manifest | null; tag: string | null }> {
  const object = await bucket.getTagged(CURRENT_KEY);
  if (!object) return { manifest: null, tag: null };
  return { manifest: parseManifestBytes(bucket, CURRENT_KEY, object.bytes), tag: object.tag };
}

/**
 * Makes `next` the bucket's current manifest if current.json is still the one read (`tag`): a
 * writer that changed it meanwhile is never overwritten (`bucket_changed`, naming what it made current).
 * The refusal says what is current now, never that `next` was not current for a moment: a switch
 * whose answer was lost may have landed before another writer's (docs/architecture.md).
 */
export async function switchCurrent(bucket: Bucket, next: Manifest, tag: string | null): Promise<void> {
  const written = await bucket.putIfUnchanged(CURRENT_KEY, Buffer.from(renderManifest(next)), 'application/json', tag);
  if (written === 'written') return;
  const now = await readCurrentManifest(bucket).catch(() => null);
  throw errors.bucketChanged(
    `${bucket.description}${CURRENT_KEY}`,
    `another writer made ${now ? `${now.version}${now.sequence !== undefined ? ` (sequence ${now.sequence})` : ''}` : 'it'} current; ${next.version} as this run wrote it is not current`,
  );
}

/**
 * Creates one object of a release (a file, then its manifest), never replacing one: the same bytes
 * there already are this release's (a run cut short, run again), other bytes are another writer's
 * release of the same version (`version_conflict`), whenever that writer started.
 */
export async function createRelease(bucket: Bucket, version: string, key: string, bytes: Uint8Array, contentType: string): Promise<void> {
  if ((await bucket.create(key, bytes, contentType)) === 'written') return;
  const there = await bucket.get(key);
  if (there?.equals(bytes)) return;
  throw errors.versionConflict(version, bucket.description, `is being published by another writer with other files (${key})`);
}

/**
 * Writes a damaged file of a kept release again with the bytes its manifest names, only if it still
 * holds the damage that was found (or is still missing): a repair by another writer meanwhile stands.
 */
export async function repairFile(bucket: Bucket, repair: { key: string; bytes: Uint8Array; version: string }): Promise<void> {
  const there = await bucket.getTagged(repair.key);
  if (there?.bytes.equals(repair.bytes)) return;
  const written = there
    ? await bucket.overwrite(repair.key, repair.bytes, 'application/gzip', there.tag)
    : (await bucket.create(repair.key, repair.bytes, 'application/gzip')) === 'written'
      ? 'written'
      : 'conflict';
  if (written === 'conflict') {
    const now = await bucket.get(repair.key);
    if (!now?.equals(repair.bytes))
      throw errors.bucketChanged(
        `${bucket.description}${repair.key}`,
        `another writer wrote it while ${repair.version} was being repaired`,
      );
  }
}

/**
 * A run's last word on what it made current, read from the bucket: current.json still names
 * `version`, or `bucket_changed` says which release another writer made current since. A bucket
 * that cannot be read now leaves the report as it was (the next run tells).
 */
export async function confirmCurrent(bucket: Bucket, version: string, left?: string): Promise<void> {
  const now = await readCurrentManifest(bucket).catch(() => undefined);
  if (now !== undefined && now?.version !== version)
    throw errors.bucketChanged(
      `${bucket.description}${CURRENT_KEY}`,
      `this run made ${version} current, but another writer has made ${now?.version ?? 'another release'} current since${left ? `; ${left}` : ''}`,
    );
}

/** The manifest a kept release carries (`releases/<version>/manifest.json`), or null when it has none. */
export function readReleaseManifest(bucket: Bucket, version: string): Promise<Manifest | null> {
  return readManifestObject(bucket, releaseManifestKey(version));
}

/** The rows of a kept release, read from its `dataset.json.gz`; null when the bucket does not hold that file. */
export async function readReleaseRows(bucket: Bucket, version: string): Promise<Dataset | null> {
  const bytes = await bucket.get(releaseFileKey(version, 'json'));
  return bytes ? openDatasetFile('json', bytes) : null;
}

async function readManifestObject(bucket: Bucket, key: string): Promise<Manifest | null> {
  const bytes = await bucket.get(key);
  return bytes ? parseManifestBytes(bucket, key, bytes) : null;
}

function parseManifestBytes(bucket: Bucket, key: string, bytes: Buffer): Manifest {
  const parsed = manifestSchema.safeParse(jsonOrNull(bytes));
  if (!parsed.success) throw errors.bucketFailed(`${bucket.description}${key}`, 'the manifest in the bucket is not a valid manifest');
  return parsed.data;
}

/**
 * Makes a kept release current again, after checking that its files are whole; signed with the next
 * sequence when there is a signer, so clients follow the rollback and still refuse a replayed old answer.
 */
export async function rollbackRelease(
  bucket: Bucket,
  version: string,
  signing?: Signing,
): Promise<{ version: string; previousVersion: string | null; expires?: string }> {
  const manifest = await readManifestObject(bucket, releaseManifestKey(version));
  const { versions: kept, marked } = await listReleases(bucket);
  // An incomplete version (a crash left it without all its files) is not kept: it is never made current.
  // Nor one marked for removal: a sweep may be deleting it (storage/deferred-deletions.ts).
  if (!manifest || !kept.includes(version))
    throw errors.releaseNotKept(version, bucket.description, kept, marked.includes(version) ? 'is marked for removal' : undefined);
  await verifyUploaded(bucket, manifest);
  await checkSigningKey(bucket, signing);
  const { manifest: current, tag } = await readCurrentForSwitch(bucket);
  const next = nextCurrent(manifest, current, signing);
  await switchCurrent(bucket, next, tag);
  // The report is of the bucket as it is now: another writer may have moved on since the switch.
  await confirmCurrent(bucket, version);
  return { version, previousVersion: current?.version ?? null, ...(next.expires ? { expires: next.expires } : {}) };
}

/**
 * The versions kept whole in the bucket, oldest first, the current one, the incomplete ones a crash
 * left, and those marked for removal (whole, but no longer kept: never rolled back to). The current
 * one is always kept: a mark on it is dropped by the next sweep.
 */
export async function listReleases(
  bucket: Bucket,
): Promise<{ versions: string[]; current: string | null; incomplete: string[]; marked: string[] }> {
  // Read afresh: the service lists releases for its fallback for as long as it runs.
  const [keys, current, marks] = await Promise.all([bucket.list(RELEASES_PREFIX), readCurrentManifest(bucket), readMarks(bucket)]);
  const { complete, orphans } = completeVersionsIn(keys);
  const isMarked = (version: string) => version !== current?.version && marks.some((mark) => markCovers(mark, releaseManifestKey(version)));
  return {
    versions: complete.filter((version) => !isMarked(version)),
    current: current?.version ?? null,
    incomplete: orphans,
    marked: complete.filter(isMarked),
  };
}

/** Reads back what the bucket holds for the manifest: every file whole, or a `bucket_failed` naming the first that is not. */
export async function verifyUploaded(bucket: Bucket, manifest: Manifest): Promise<void> {
  const expected = FORMATS.map((format) => ({ key: releaseFileKey(manifest.version, format), digest: manifest.files[format] }));
  await readBack(bucket, expected);
}

/** Reads back files just written: each holds exactly the bytes given, or a `bucket_failed` names the first that does not. */
export async function verifyWritten(bucket: Bucket, writes: { key: string; bytes: Uint8Array }[]): Promise<void> {
  await readBack(
    bucket,
    writes.map(({ key, bytes }) => ({ key, digest: { sha256: sha256Hex(bytes), size: bytes.length } })),
  );
}

async function readBack(bucket: Bucket, expected: { key: string; digest: FileDigest }[]): Promise<void> {
  for (const { key, digest } of expected) {
    const bytes = await bucket.get(key);
    if (!bytes) throw errors.bucketFailed(`${bucket.description}${key}`, 'the file is missing');
    if (!holdsDigest(bytes, digest)) {
      throw errors.bucketFailed(
        `${bucket.description}${key}`,
        `the bucket holds ${bytes.length} bytes with SHA-256 ${sha256Hex(bytes)}, expected ${digest.size} bytes with ${digest.sha256}`,
      );
    }
  }
}
