import { errors, isTariffError } from '../errors.ts';
import { sha256Hex } from '../release/gzip.ts';
import { FORMATS, manifestSchema, renderManifest, type Format, type Manifest } from '../release/manifest.ts';
import type { Bucket } from '../storage/bucket.ts';
import { bucketFileProblems } from './check-bucket-release.ts';
import { completeVersionsIn, CURRENT_KEY, RELEASES_PREFIX, releaseFileKey, releaseManifestKey, versionsToPrune } from './bucket-layout.ts';

export const DEFAULT_KEEP = 30;

export interface ReleaseFiles {
  manifest: Manifest;
  files: Record<Format, Uint8Array>;
}

export interface PublishResult {
  /** repaired: the release was current already, but the bucket's files did not match it and were written again. */
  status: 'published' | 'already-current' | 'repaired';
  version: string;
  previousVersion: string | null;
  pruned: string[];
  /** Incomplete versions a crashed run left, removed after the switch. */
  cleaned?: string[];
  /** What was wrong, when repaired. */
  repaired?: string[];
}

export type PublishStep = 'upload' | 'verify' | 'switch' | 'prune';

export interface PublishOptions {
  keep: number;
  /** Called as each step starts, for progress lines; `bytes` is the size of an upload. */
  onStep?: (step: PublishStep, detail: string) => void;
}

/** Reads the current manifest of a bucket, or null when nothing was ever published. */
export async function readCurrentManifest(bucket: Bucket): Promise<Manifest | null> {
  return readManifestObject(bucket, CURRENT_KEY);
}

/** The manifest a kept release carries (`releases/<version>/manifest.json`), or null when it has none. */
export function readReleaseManifest(bucket: Bucket, version: string): Promise<Manifest | null> {
  return readManifestObject(bucket, releaseManifestKey(version));
}

async function readManifestObject(bucket: Bucket, key: string): Promise<Manifest | null> {
  const bytes = await bucket.get(key);
  if (!bytes) return null;
  const parsed = manifestSchema.safeParse(safeJson(bytes));
  if (!parsed.success) throw errors.bucketFailed(`${bucket.description}${key}`, 'the manifest in the bucket is not a valid manifest');
  return parsed.data;
}

const safeJson = (bytes: Buffer): unknown => {
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch {
    return null;
  }
};

const sameFiles = (a: Manifest, b: Manifest) =>
  FORMATS.every((format) => a.files[format].sha256 === b.files[format].sha256 && a.files[format].size === b.files[format].size);

/**
 * Publishes a release to a bucket: uploads its files under the release's own prefix, reads them
 * back to check size and SHA-256, writes the release's manifest, and only then switches the
 * current manifest. Any failure before the switch leaves the previous release current and whole.
 * Re-publishing the current release checks the bucket's files: whole, it does nothing; damaged or
 * missing, it writes them again (a repair). Older releases beyond `keep` are deleted after the switch.
 */
export async function publishRelease(bucket: Bucket, release: ReleaseFiles, options: PublishOptions): Promise<PublishResult> {
  const { manifest } = release;
  const version = manifest.version;
  const current = await readCurrentManifest(bucket);
  let repairing: string[] | null = null;
  if (current && current.version === version && sameFiles(current, manifest)) {
    repairing = await bucketFileProblems(bucket, manifest);
    if (repairing.length === 0) return { status: 'already-current', version, previousVersion: current.version, pruned: [] };
  }
  const published = await readManifestObject(bucket, releaseManifestKey(version));
  if (published && !sameFiles(published, manifest)) throw errors.versionConflict(version, bucket.description);

  try {
    for (const format of FORMATS) {
      options.onStep?.('upload', `${releaseFileKey(version, format)} (${release.files[format].length} bytes)`);
      await bucket.put(releaseFileKey(version, format), release.files[format], 'application/gzip');
    }
    options.onStep?.('verify', `${FORMATS.length} files`);
    await verifyUploaded(bucket, manifest);
    await bucket.put(releaseManifestKey(version), Buffer.from(renderManifest(manifest)), 'application/json');
    options.onStep?.('switch', `${CURRENT_KEY} → ${version}`);
    await bucket.put(CURRENT_KEY, Buffer.from(renderManifest(manifest)), 'application/json');
  } catch (error) {
    if (isTariffError(error)) throw error;
    throw errors.bucketFailed(
      bucket.description,
      `publishing ${version} failed, ${current ? `${current.version} is still current` : 'nothing is current'}: ${(error as Error).message}`,
    );
  }

  options.onStep?.('prune', `keep ${options.keep}`);
  const { pruned, cleaned } = await prune(bucket, options.keep, version);
  const done = { version, previousVersion: current?.version ?? null, pruned, ...(cleaned.length > 0 ? { cleaned } : {}) };
  if (repairing) return { status: 'repaired', ...done, repaired: repairing };
  return { status: 'published', ...done };
}

/** Makes a kept release current again, after checking that its files are whole. */
export async function rollbackRelease(bucket: Bucket, version: string): Promise<{ version: string; previousVersion: string | null }> {
  const manifest = await readManifestObject(bucket, releaseManifestKey(version));
  if (!manifest) throw errors.releaseNotKept(version, bucket.description, completeVersionsIn(await bucket.list(RELEASES_PREFIX)).complete);
  await verifyUploaded(bucket, manifest);
  const current = await readCurrentManifest(bucket);
  await bucket.put(CURRENT_KEY, Buffer.from(renderManifest(manifest)), 'application/json');
  return { version, previousVersion: current?.version ?? null };
}

/** The versions kept in the bucket, oldest first, and the current one. */
/** The versions kept whole in the bucket, oldest first, the current one, and the incomplete ones a crash left. */
export async function listReleases(bucket: Bucket): Promise<{ versions: string[]; current: string | null; incomplete: string[] }> {
  const [keys, current] = await Promise.all([bucket.list(RELEASES_PREFIX), readCurrentManifest(bucket)]);
  const { complete, orphans } = completeVersionsIn(keys);
  return { versions: complete, current: current?.version ?? null, incomplete: orphans };
}

async function verifyUploaded(bucket: Bucket, manifest: Manifest): Promise<void> {
  for (const format of FORMATS) {
    const key = releaseFileKey(manifest.version, format);
    const bytes = await bucket.get(key);
    const expected = manifest.files[format];
    if (!bytes) throw errors.bucketFailed(`${bucket.description}${key}`, 'the file is missing after upload');
    if (bytes.length !== expected.size || sha256Hex(bytes) !== expected.sha256) {
      throw errors.bucketFailed(
        `${bucket.description}${key}`,
        `the bucket holds ${bytes.length} bytes with SHA-256 ${sha256Hex(bytes)}, expected ${expected.size} bytes with ${expected.sha256}`,
      );
    }
  }
}

/**
 * Deletes the releases beyond `keep` and the incomplete versions crashed runs left, never the
 * current one. Each version's manifest goes first, so a prune cut short leaves an incomplete
 * version (cleaned next time), never a manifest that names missing files.
 */
async function prune(bucket: Bucket, keep: number, current: string): Promise<{ pruned: string[]; cleaned: string[] }> {
  const keys = await bucket.list(RELEASES_PREFIX);
  const { complete, orphans } = completeVersionsIn(keys);
  const pruned = versionsToPrune(complete, keep, current);
  const cleaned = orphans.filter((version) => version !== current);
  for (const version of [...pruned, ...cleaned]) {
    const prefix = `${RELEASES_PREFIX}${version}/`;
    const own = keys.filter((key) => key.startsWith(prefix));
    await bucket.delete(own.filter((key) => key === releaseManifestKey(version)));
    await bucket.delete(own.filter((key) => key !== releaseManifestKey(version)));
  }
  return { pruned, cleaned };
}
