import { errors, isTariffError } from '../errors.ts';
import { CURRENT_KEY, RELEASES_PREFIX, releaseManifestKey } from '../publish/bucket-layout.ts';
import type { CopySource } from '../publish/intact-copies.ts';
import {
  changesNothing,
  planHeadline,
  planPublication,
  summarisePlan,
  type PlannedRepair,
  type PublicationPlan,
} from '../publish/plan-publication.ts';
import { verifyWritten, type PublishResult, type ReleaseFiles } from '../publish/bucket-releases.ts';
import { renderManifest } from '../release/manifest.ts';
import type { Bucket } from '../storage/bucket.ts';
import type { Step } from './step-runner.ts';

/** What the publish steps read and leave: the bucket, the release to put in it, the plan, and the outcome. */
export interface PublishState {
  bucket: Bucket;
  keep: number;
  release?: ReleaseFiles;
  /** Where intact bytes of a damaged kept release may be found (the local copies). */
  copies?: readonly CopySource[];
  /** Set by the plan step: everything the publication does. */
  plan?: PublicationPlan;
}

/** A bucket error before the switch leaves the previous release current and whole: said so. */
async function beforeSwitch<T>(state: PublishState, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (isTariffError(error)) throw error;
    const { current } = state.plan!;
    const still = current ? `${current.version} is still current` : 'nothing is current';
    throw errors.bucketFailed(state.bucket.description, `publishing ${state.plan!.version} failed, ${still}: ${(error as Error).message}`);
  }
}

const repairLine = (repair: PlannedRepair) => `repair ${repair.key} from ${repair.from} (${repair.problem.replace(`${repair.key} `, '')})`;

/** Nothing to switch: the release is current already (whole, or repaired by the upload step). */
const noSwitch = (state: PublishState) => (state.plan!.switch ? null : `${state.plan!.version} is current already`);

/** The upload step's writes, in order: repairs first (a kept release whole again), then the release's files. */
const writesOf = (plan: PublicationPlan) => [...plan.repairs, ...plan.uploads];

/**
 * Publishing, as one plan applied in steps: the plan reads the bucket and decides everything
 * (upload, repair, switch from → to, prune, clean; or refuses: version_conflict, version_behind,
 * bucket_damaged); a dry run prints it, the run applies it. Files are uploaded under the release's
 * own prefix and read back (size and SHA-256) before the current manifest switches; a failure
 * before the switch leaves the previous release current and whole.
 */
export const PUBLISH_STEPS: Step<PublishState>[] = [
  {
    name: 'plan',
    dryRunSafe: true,
    run: async (state, say) => {
      const plan = await planPublication(state.bucket, state.release!, { keep: state.keep, copies: state.copies });
      state.plan = plan;
      if (!plan.switch && plan.unrepairable.length > 0)
        throw errors.bucketDamaged(plan.version, state.bucket.description, plan.unrepairable);
      for (const problem of plan.unrepairable) say(`${plan.current!.version} stays damaged: ${problem}`);
      const headline = planHeadline(summarisePlan(plan));
      say(changesNothing(plan) ? `${headline}: nothing to do` : headline);
    },
  },
  {
    name: 'upload',
    dryRunSafe: false,
    skip: (state) => (writesOf(state.plan!).length === 0 ? 'nothing to upload' : null),
    run: async (state, say) => {
      const { bucket, plan } = state;
      await beforeSwitch(state, async () => {
        for (const repair of plan!.repairs) {
          say(repairLine(repair));
          await bucket.put(repair.key, repair.bytes, 'application/gzip');
        }
        for (const upload of plan!.uploads) {
          say(`${upload.key} (${upload.bytes.length} bytes)`);
          await bucket.put(upload.key, upload.bytes, 'application/gzip');
        }
        await verifyWritten(bucket, writesOf(plan!));
      });
      say(`read back: ${writesOf(plan!).length} file(s) whole`);
    },
    wouldDo: async (state) => [
      ...state.plan!.repairs.map(repairLine),
      ...state.plan!.uploads.map((upload) => `upload ${upload.key} (${upload.bytes.length} bytes)`),
    ],
  },
  {
    name: 'switch',
    dryRunSafe: false,
    skip: noSwitch,
    run: async (state, say) => {
      const { manifest } = state.release!;
      const { from, to } = state.plan!.switch!;
      await beforeSwitch(state, async () => {
        await state.bucket.put(releaseManifestKey(to), Buffer.from(renderManifest(manifest)), 'application/json');
        await state.bucket.put(CURRENT_KEY, Buffer.from(renderManifest(manifest)), 'application/json');
      });
      say(`${CURRENT_KEY} → ${to} (was ${from ?? 'none'})`);
    },
    wouldDo: async (state) => [`make ${state.plan!.switch!.to} current (was ${state.plan!.switch!.from ?? 'none'})`],
  },
  {
    name: 'prune',
    dryRunSafe: false,
    skip: noSwitch,
    run: async (state, say) => {
      const { prune, clean } = state.plan!;
      await removeVersions(state.bucket, [...prune, ...clean]);
      say(`keep ${state.keep}: ${prune.length > 0 ? `removed ${prune.join(', ')}` : 'nothing to remove'}`);
      for (const orphan of clean) say(`removed the incomplete version ${orphan}, left by an interrupted run`);
    },
    wouldDo: async (state) => [`keep ${state.keep}: remove ${[...state.plan!.prune, ...state.plan!.clean].join(', ') || 'nothing'}`],
  },
];

/** What the publication did, once its steps ran: the plan, applied. */
export function publicationResult(plan: PublicationPlan): PublishResult {
  const repaired = plan.repairs.map((repair) => repair.problem);
  const unrepaired = plan.unrepairable.length > 0 ? { unrepaired: plan.unrepairable } : {};
  if (!plan.switch) {
    const done = { version: plan.version, previousVersion: plan.version, pruned: [] };
    return repaired.length > 0 ? { status: 'repaired', ...done, repaired } : { status: 'already-current', ...done };
  }
  return {
    status: 'published',
    version: plan.version,
    previousVersion: plan.switch.from,
    pruned: plan.prune,
    ...(plan.clean.length > 0 ? { cleaned: plan.clean } : {}),
    ...(repaired.length > 0 ? { repaired } : {}),
    ...unrepaired,
  };
}

/**
 * Deletes whole versions. Each version's manifest goes first, so a removal cut short leaves an
 * incomplete version (cleaned next time), never a manifest that names missing files.
 */
async function removeVersions(bucket: Bucket, versions: string[]): Promise<void> {
  if (versions.length === 0) return;
  const keys = await bucket.list(RELEASES_PREFIX);
  for (const version of versions) {
    const own = keys.filter((key) => key.startsWith(`${RELEASES_PREFIX}${version}/`));
    await bucket.delete(own.filter((key) => key === releaseManifestKey(version)));
    await bucket.delete(own.filter((key) => key !== releaseManifestKey(version)));
  }
}
