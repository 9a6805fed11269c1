import { errors, isTariffError } from '../errors.ts';
import { bucketFileProblems } from '../publish/check-bucket-release.ts';
import {
  completeVersionsIn,
  CURRENT_KEY,
  RELEASES_PREFIX,
  releaseFileKey,
  releaseManifestKey,
  versionsToPrune,
} from '../publish/bucket-layout.ts';
import {
  readCurrentManifest,
  readReleaseManifest,
  verifyUploaded,
  type PublishResult,
  type ReleaseFiles,
} from '../publish/publish-release.ts';
import { FORMATS, renderManifest, type Manifest } from '../release/manifest.ts';
import type { Bucket } from '../storage/bucket.ts';
import type { Step } from './step-runner.ts';

/** What the publish steps read and leave: the bucket, the release to put in it, and the outcome. */
export interface PublishState {
  bucket: Bucket;
  keep: number;
  release?: ReleaseFiles;
  /** The bucket's current manifest before this publish (read by the upload step). */
  current?: Manifest | null;
  /** What was wrong with the current release when it is published again (a repair). */
  repairing?: string[] | null;
  published?: PublishResult;
}

const sameFiles = (a: Manifest, b: Manifest) =>
  FORMATS.every((format) => a.files[format].sha256 === b.files[format].sha256 && a.files[format].size === b.files[format].size);

/** A bucket error before the switch leaves the previous release current and whole: said so. */
async function beforeSwitch<T>(state: PublishState, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (isTariffError(error)) throw error;
    const still = state.current ? `${state.current.version} is still current` : 'nothing is current';
    throw errors.bucketFailed(
      state.bucket.description,
      `publishing ${state.release!.manifest.version} failed, ${still}: ${(error as Error).message}`,
    );
  }
}

const alreadyCurrent = (state: PublishState) =>
  state.published?.status === 'already-current' ? `${state.published.version} is current and whole` : null;

/**
 * Publishing: upload the files under the release's own prefix and read them back (size and
 * SHA-256), then switch the current manifest, then prune. A failure before the switch leaves the
 * previous release current and whole. Publishing the current release again checks the bucket's
 * files: whole, nothing is done; damaged or missing, they are written again (a repair).
 */
export const PUBLISH_STEPS: Step<PublishState>[] = [
  {
    name: 'upload',
    dryRunSafe: false,
    run: async (state, say) => {
      const { bucket, release } = state;
      const { manifest } = release!;
      state.current = await readCurrentManifest(bucket);
      if (state.current?.version === manifest.version && sameFiles(state.current, manifest)) {
        state.repairing = await bucketFileProblems(bucket, manifest);
        if (state.repairing.length === 0) {
          state.published = { status: 'already-current', version: manifest.version, previousVersion: manifest.version, pruned: [] };
          return say(`nothing to upload: ${manifest.version} is current and whole`);
        }
        for (const problem of state.repairing) say(`repairing: ${problem}`);
      }
      const published = await readReleaseManifest(bucket, manifest.version);
      if (published && !sameFiles(published, manifest)) throw errors.versionConflict(manifest.version, bucket.description);
      await beforeSwitch(state, async () => {
        for (const format of FORMATS) {
          say(`${releaseFileKey(manifest.version, format)} (${release!.files[format].length} bytes)`);
          await bucket.put(releaseFileKey(manifest.version, format), release!.files[format], 'application/gzip');
        }
        await verifyUploaded(bucket, manifest);
      });
      say(`read back: ${FORMATS.length} files whole`);
    },
    wouldDo: async (state) => {
      const { manifest, files } = state.release!;
      const current = await readCurrentManifest(state.bucket);
      if (current?.version === manifest.version && sameFiles(current, manifest))
        return [`check that ${manifest.version}, current, is whole`];
      return FORMATS.map((format) => `upload ${releaseFileKey(manifest.version, format)} (${files[format].length} bytes)`);
    },
  },
  {
    name: 'switch',
    dryRunSafe: false,
    skip: alreadyCurrent,
    run: async (state, say) => {
      const { manifest } = state.release!;
      await beforeSwitch(state, async () => {
        await state.bucket.put(releaseManifestKey(manifest.version), Buffer.from(renderManifest(manifest)), 'application/json');
        await state.bucket.put(CURRENT_KEY, Buffer.from(renderManifest(manifest)), 'application/json');
      });
      say(`${CURRENT_KEY} → ${manifest.version} (was ${state.current?.version ?? 'none'})`);
    },
    wouldDo: async (state) => [
      `make ${state.release!.manifest.version} current (was ${(await readCurrentManifest(state.bucket))?.version ?? 'none'})`,
    ],
  },
  {
    name: 'prune',
    dryRunSafe: false,
    skip: alreadyCurrent,
    run: async (state, say) => {
      const version = state.release!.manifest.version;
      const { pruned, cleaned } = await prune(state.bucket, state.keep, version);
      const done = { version, previousVersion: state.current?.version ?? null, pruned, ...(cleaned.length > 0 ? { cleaned } : {}) };
      state.published = state.repairing?.length
        ? { status: 'repaired', ...done, repaired: state.repairing }
        : { status: 'published', ...done };
      say(`keep ${state.keep}: ${pruned.length > 0 ? `removed ${pruned.join(', ')}` : 'nothing to remove'}`);
      for (const orphan of cleaned) say(`removed the incomplete version ${orphan}, left by an interrupted run`);
    },
    wouldDo: async (state) => {
      const { pruned, cleaned } = pruningPlan(await state.bucket.list(RELEASES_PREFIX), state.keep, state.release!.manifest.version);
      return [`keep ${state.keep}: remove ${[...pruned, ...cleaned].join(', ') || 'nothing'}`];
    },
  },
];

/**
 * Deletes the releases beyond `keep` and the incomplete versions crashed runs left, never the
 * current one. Each version's manifest goes first, so a prune cut short leaves an incomplete
 * version (cleaned next time), never a manifest that names missing files.
 */
async function prune(bucket: Bucket, keep: number, current: string): Promise<{ pruned: string[]; cleaned: string[] }> {
  const keys = await bucket.list(RELEASES_PREFIX);
  const { pruned, cleaned } = pruningPlan(keys, keep, current);
  for (const version of [...pruned, ...cleaned]) {
    const own = keys.filter((key) => key.startsWith(`${RELEASES_PREFIX}${version}/`));
    await bucket.delete(own.filter((key) => key === releaseManifestKey(version)));
    await bucket.delete(own.filter((key) => key !== releaseManifestKey(version)));
  }
  return { pruned, cleaned };
}

/** What a prune removes, given the bucket's keys; `current` counts as complete even before its upload (dry runs). */
function pruningPlan(keys: string[], keep: number, current: string): { pruned: string[]; cleaned: string[] } {
  const { complete, orphans } = completeVersionsIn(keys);
  return {
    pruned: versionsToPrune([...new Set([...complete, current])], keep, current),
    cleaned: orphans.filter((version) => version !== current),
  };
}
