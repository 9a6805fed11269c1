import { errors, isTariffError } from '../errors.ts';
import { describeFailure } from '../util/machine-fault.ts';
import { keepSources, SOURCES_PREFIX } from '../publish/bucket-sources.ts';
import { collectGarbage } from './bucket-garbage.ts';
import type { BucketWriterRun } from './bucket-writer.ts';
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
import {
  confirmCurrent,
  createRelease,
  repairFile,
  switchCurrent,
  verifyWritten,
  type PublishResult,
  type ReleaseFiles,
} from '../publish/bucket-releases.ts';
import { releaseManifestOf, renderManifest, type Manifest } from '../release/manifest.ts';
import type { Signing } from '../publish/current-signing.ts';
import type { Bucket } from '../storage/bucket.ts';
import type { StepRunner } from './step-runner.ts';

type Switch = NonNullable<PublicationPlan['switch']>;

/** Where a release is published, and what the plan may take from besides it. */
export interface PublishTarget {
  bucket: Bucket;
  keep: number;
  /** Where intact bytes of a damaged kept release may be found (the local copies). */
  copies?: readonly CopySource[];
  /** Who signs the current manifest, and when (docs/operations.md, "Signing releases"). */
  signing?: Signing;
  /**
   * The bytes of a document the release was built from, by digest (the run's own documents, the
   * data dir's snapshots), to keep in the bucket's sources/ before the switch; null when not at hand.
   */
  sources?: (sha256: string) => Promise<Uint8Array | null>;
  /** The writer's clock and retention, for deferred deletion. */
  run: BucketWriterRun;
  /** The command, as a mark names who made it. */
  command?: string;
}

/** A bucket error before the switch leaves the previous release current and whole: said so. */
async function beforeSwitch<T>(bucket: Bucket, plan: PublicationPlan, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (isTariffError(error)) throw error;
    const still = plan.current ? `${plan.current.version} is still current` : 'nothing is current';
    // A full disk or an unwritable folder is said as that, with what to do, not as a wrong URI or network.
    const { detail, remedy } = describeFailure(error);
    const hint = remedy ? `${remedy} The current release was not changed.` : undefined;
    throw errors.bucketFailed(bucket.description, `publishing ${plan.version} failed, ${still}: ${detail}`, hint);
  }
}

/**
 * A step after the switch: the new release is current whatever happens here, so a failure says
 * that, and what is left (`published_incomplete`, exit 3), never "the current release was not changed".
 */
export async function afterSwitch<T>(
  bucket: Bucket,
  plan: PublicationPlan | null | undefined,
  step: string,
  work: () => Promise<T>,
): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!plan?.switch) throw error;
    // "Published, needs no undoing" is said only while it is true: another writer may have moved on since.
    await confirmCurrent(bucket, plan.version, `${step} was left to that writer (${isTariffError(error) ? error.code : 'failed'})`);
    const { detail, remedy } = isTariffError(error) ? { detail: error.message, remedy: undefined } : describeFailure(error);
    throw errors.publishedIncomplete(plan.version, bucket.description, step, detail, remedy);
  }
}

const repairLine = (repair: PlannedRepair) => `repair ${repair.key} from ${repair.from} (${repair.problem.replace(`${repair.key} `, '')})`;

/** The upload step's writes, in order: repairs first (a kept release whole again), then the release's files. */
const writesOf = (plan: PublicationPlan) => [...plan.repairs, ...plan.uploads];

/** Reads the bucket and decides everything the publication does, or refuses (version_conflict, version_behind, bucket_damaged). */
export function planStep(runner: StepRunner, target: PublishTarget, release: ReleaseFiles): Promise<PublicationPlan> {
  return runner.compute('plan', async (say) => {
    const plan = await planPublication(target.bucket, release, { keep: target.keep, copies: target.copies, signing: target.signing });
    if (!plan.switch && plan.unrepairable.length > 0)
      throw errors.bucketDamaged(plan.version, target.bucket.description, plan.unrepairable);
    for (const problem of plan.unrepairable) say(`${plan.current?.version ?? 'the current release'} stays damaged: ${problem}`);
    const headline = planHeadline(summarisePlan(plan));
    say(changesNothing(plan) ? `${headline}: nothing to do` : headline);
    return plan;
  });
}

async function uploadStep(runner: StepRunner, bucket: Bucket, plan: PublicationPlan): Promise<void> {
  const writes = writesOf(plan);
  if (writes.length === 0) return runner.skip('upload', 'nothing to upload');
  await runner.effect('upload', {
    run: async (say) => {
      await beforeSwitch(bucket, plan, async () => {
        for (const repair of plan.repairs) {
          say(repairLine(repair));
          await repairFile(bucket, repair);
        }
        for (const upload of plan.uploads) {
          say(`${upload.key} (${upload.bytes.length} bytes)`);
          await createRelease(bucket, plan.version, upload.key, upload.bytes, 'application/gzip');
        }
        await verifyWritten(bucket, writes);
      });
      say(`read back: ${writes.length} file(s) whole`);
    },
    wouldDo: () => [
      ...plan.repairs.map(repairLine),
      ...plan.uploads.map((upload) => `upload ${upload.key} (${upload.bytes.length} bytes)`),
    ],
  });
}

/** ", signed by key … until …" when the manifest made current is signed. */
const signedUntil = (next: Manifest) => (next.signature ? `, signed by key ${next.signature.keyId} until ${next.expires}` : '');

async function switchStep(runner: StepRunner, bucket: Bucket, plan: PublicationPlan, manifest: Manifest, move: Switch): Promise<void> {
  const next = plan.next ?? releaseManifestOf(manifest);
  await runner.effect('switch', {
    run: async (say) => {
      await beforeSwitch(bucket, plan, async () => {
        await createRelease(
          bucket,
          move.to,
          releaseManifestKey(move.to),
          Buffer.from(renderManifest(releaseManifestOf(manifest))),
          'application/json',
        );
        await switchCurrent(bucket, next, plan.currentTag);
      });
      say(`${CURRENT_KEY} → ${move.to} (was ${move.from ?? 'none'})${signedUntil(next)}`);
    },
    wouldDo: () => [`make ${move.to} current (was ${move.from ?? 'none'})${signedUntil(next)}`],
  });
}

/**
 * The documents the release was built from, kept in the bucket by content before the switch
 * (sources/, read back): a release current in the bucket can be built again from the bucket alone.
 * One whose bytes are not at hand (a folder built on another machine) is said, not a failure.
 */
async function sourcesStep(runner: StepRunner, target: PublishTarget, manifest: Manifest, plan: PublicationPlan): Promise<void> {
  const refs = (manifest.provenance?.documents ?? []).map((doc) => ({ sha256: doc.sha256, name: doc.url }));
  // A publication given no documents to keep (a release made in memory) has no step to run.
  if (refs.length === 0 || !target.sources) return;
  const bytesOf = target.sources;
  await runner.effect('sources', {
    run: async (say) => {
      const { stored, missing } = await beforeSwitch(target.bucket, plan, () => keepSources(target.bucket, refs, bytesOf));
      if (stored.length > 0) say(`kept ${stored.length} document(s) it was built from in ${SOURCES_PREFIX}`);
      if (missing.length > 0)
        say(
          `${missing.map((ref) => `${ref.name} (sha256 ${ref.sha256.slice(0, 12)}…)`).join(', ')} not at hand here: the bucket alone cannot rebuild ${plan.version}`,
        );
    },
    wouldDo: () => [],
  });
}

/** The release stays current; its manifest is signed again (renewed before it expires, or by a new key). */
async function signStep(runner: StepRunner, bucket: Bucket, plan: PublicationPlan, next: Manifest): Promise<void> {
  await runner.effect('sign', {
    run: async (say) => {
      await beforeSwitch(bucket, plan, () => switchCurrent(bucket, next, plan.currentTag));
      say(`${CURRENT_KEY}: ${plan.version} re-signed (${plan.resign})${signedUntil(next)}`);
    },
    wouldDo: () => [`re-sign ${plan.version} (${plan.resign})${signedUntil(next)}`],
  });
}

/**
 * Deferred deletion after the switch: the versions beyond --keep are marked (never the one
 * current.json names now, read again), and what earlier runs marked more than the retention ago
 * and no pointer names now is deleted (bucket-garbage.ts).
 */
async function pruneStep(runner: StepRunner, target: PublishTarget, plan: PublicationPlan): Promise<void> {
  const run = target.run;
  await runner.effect('prune', {
    run: async (say) => {
      const retire = [...plan.prune, ...plan.clean].map((version) => ({
        prefix: `${RELEASES_PREFIX}${version}/`,
        reason: plan.prune.includes(version) ? `beyond --keep ${target.keep}` : 'an incomplete version, left by an interrupted run',
      }));
      const report = await collectGarbage(target.bucket, {
        storeNow: run.storeNow(),
        retentionMs: run.retentionMs,
        by: `tariff ${target.command ?? 'publish'}`,
        keep: target.keep,
        retire,
      });
      const hours = Math.round(run.retentionMs / 3_600_000);
      const marked = report.marked.length > 0 ? `marked ${report.marked.join(', ')} for removal in ${hours} h` : 'nothing to mark';
      // A run that published says what it kept; one that changed nothing says only what it removed.
      if (plan.switch || report.marked.length > 0) say(`keep ${target.keep}: ${marked}`);
      if (report.removed.length > 0) say(`removed ${report.removed.join(', ')} (marked more than ${hours} h ago)`);
      if (report.kept.length > 0) say(`kept ${report.kept.join(', ')}: named again since it was marked`);
    },
    wouldDo: () => [`keep ${target.keep}: mark ${[...plan.prune, ...plan.clean].join(', ') || 'nothing'} for removal`],
  });
}

/**
 * Applies a publication plan in steps: files uploaded under the release's own prefix and read back
 * (size and SHA-256) before the current manifest switches, then the bucket pruned. A failure before
 * the switch leaves the previous release current and whole. A dry run says what each would do.
 */
export async function applyPlan(runner: StepRunner, target: PublishTarget, manifest: Manifest, plan: PublicationPlan): Promise<void> {
  await uploadStep(runner, target.bucket, plan);
  await sourcesStep(runner, target, manifest, plan);
  const move = plan.switch;
  if (!move) {
    if (plan.next) await signStep(runner, target.bucket, plan, plan.next);
    runner.skip('switch', `${plan.version} is current already`);
    // Deletions marked by earlier runs fall due with time: every run sweeps, a run with nothing new too.
    if (runner.dryRun) runner.skip('prune', `${plan.version} is current already`);
    else await pruneStep(runner, target, plan);
    return;
  }
  await switchStep(runner, target.bucket, plan, manifest, move);
  await afterSwitch(target.bucket, plan, 'removing old versions', () => pruneStep(runner, target, plan));
}

/**
 * Publishing, as one plan applied in steps: the plan reads the bucket and decides everything
 * (upload, repair, switch from → to, prune, clean; or refuses); a dry run prints it, the run
 * applies it, so the two cannot disagree.
 */
export async function publishSteps(runner: StepRunner, target: PublishTarget, release: ReleaseFiles): Promise<PublicationPlan> {
  const plan = await planStep(runner, target, release);
  await applyPlan(runner, target, release.manifest, plan);
  return plan;
}

/** What the publication did, once its steps ran: the plan, applied. */
export function publicationResult(plan: PublicationPlan): PublishResult {
  const repaired = plan.repairs.map((repair) => repair.problem);
  const unrepaired = plan.unrepairable.length > 0 ? { unrepaired: plan.unrepairable } : {};
  const expires = plan.next?.expires ? { expires: plan.next.expires } : {};
  if (!plan.switch) {
    const done = { version: plan.version, previousVersion: plan.version, pruned: [], ...expires };
    if (repaired.length > 0) return { status: 'repaired', ...done, repaired };
    return plan.resign ? { status: 're-signed', ...done, resigned: plan.resign } : { status: 'already-current', ...done };
  }
  return {
    status: 'published',
    version: plan.version,
    previousVersion: plan.switch.from,
    pruned: plan.prune,
    ...expires,
    ...(plan.clean.length > 0 ? { cleaned: plan.clean } : {}),
    ...(repaired.length > 0 ? { repaired } : {}),
    ...unrepaired,
  };
}
