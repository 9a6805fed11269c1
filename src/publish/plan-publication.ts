import { errors } from '../errors.ts';
import { FORMATS, sameDigest, type Manifest } from '../release/manifest.ts';
import type { Bucket } from '../storage/bucket.ts';
import { completeVersionsIn, RELEASES_PREFIX, releaseFileKey, releaseManifestKey, versionsToPrune } from './bucket-layout.ts';
import { markCovers, marksOf } from '../storage/deferred-deletions.ts';
import { compareVersions } from '../release/release-version.ts';
import { bucketFileDamage } from './check-bucket-release.ts';
import { intactFile, type CopySource } from './intact-copies.ts';
import { readCurrentForSwitch, readReleaseManifest, type ReleaseFiles } from './bucket-releases.ts';
import { checkSigningKey, nextCurrent, resignReason, type Signing } from './current-signing.ts';

/** One file written under its key: a release file uploaded, or a damaged one written again. */
export interface PlannedWrite {
  key: string;
  bytes: Uint8Array;
}

/** A damaged file of a kept release, written again with the same bytes found intact elsewhere. */
export interface PlannedRepair extends PlannedWrite {
  version: string;
  problem: string;
  /** Where the intact bytes come from: "the local copy", "the release just built". */
  from: string;
}

/**
 * Everything a publication does to the bucket, decided before anything is written: `--dry-run`
 * prints it and the run applies it, so the two cannot disagree.
 */
export interface PublicationPlan {
  version: string;
  /** The bucket's current manifest before the publication. */
  current: Manifest | null;
  /** Its tag as read: the switch writes current.json only if it still has it (compare-and-swap). */
  currentTag: string | null;
  /** The release's files, when the bucket does not hold it yet (empty when it is current already). */
  uploads: PlannedWrite[];
  repairs: PlannedRepair[];
  /** Damage with no intact copy at hand to write back. */
  unrepairable: string[];
  /** The current manifest's move, or null when the release is current already. */
  switch: { from: string | null; to: string } | null;
  /** Why the current manifest is signed again though its release stays current (renewal, a new key), or null. */
  resign: string | null;
  /** What the bucket's current manifest becomes (signed when there is a signer), or null when it stays as it is. */
  next: Manifest | null;
  /** Kept versions beyond retention, then incomplete ones a crashed run left: removed after the switch. */
  prune: string[];
  clean: string[];
}

export interface PlanOptions {
  keep: number;
  /** Where intact bytes of a damaged file may be found besides the release itself (the local copies). */
  copies?: readonly CopySource[];
  /** The key that signs the current manifest, and when; none: unsigned (refused once the bucket lists a key in use). */
  signing?: Signing;
}

const sameFiles = (a: Manifest, b: Manifest) => FORMATS.every((format) => sameDigest(a.files[format], b.files[format]));

/**
 * Plans publishing `release` to `bucket`, reading it and writing nothing. The rules:
 * - the release is current already (same version and files, or the same content however
 *   compressed): no upload, no switch; its damaged files are repaired;
 * - another release's files under the same version: `version_conflict`;
 * - a version older than the current one: `version_behind` (only `tariff rollback` goes back);
 * - otherwise its files are uploaded, the current manifest switched, the previous current release
 *   repaired if damaged (it stays kept, for a rollback), and the bucket pruned.
 */
export async function planPublication(bucket: Bucket, release: ReleaseFiles, options: PlanOptions): Promise<PublicationPlan> {
  const { manifest } = release;
  const { manifest: current, tag: currentTag } = await readCurrentForSwitch(bucket);
  const isCurrent = current?.version === manifest.version && (sameFiles(current, manifest) || release.sameContentAs === current.version);
  if (current?.version === manifest.version && !isCurrent) throw errors.versionConflict(manifest.version, bucket.description);
  if (!isCurrent) await refuseConflicts(bucket, manifest, current);
  await checkSigningKey(bucket, options.signing);

  // The release's own bytes repair its files only when they are the bucket's (another zlib may differ).
  const self: CopySource = { name: 'the release just built', read: async (_, format) => release.files[format] };
  const copies = options.copies ?? [];
  if (isCurrent) {
    const { repairs, unrepairable } = await planRepairs(bucket, current, [self, ...copies]);
    const resign = resignReason(current, options.signing);
    const next = resign ? nextCurrent(current, current, options.signing) : null;
    return {
      version: manifest.version,
      current,
      currentTag,
      uploads: [],
      repairs,
      unrepairable,
      switch: null,
      resign,
      next,
      prune: [],
      clean: [],
    };
  }
  const marks = await marksOf(bucket);
  const keys = await bucket.list(RELEASES_PREFIX);
  // A version marked for removal is never published again: a sweep may be deleting its files.
  if (keys.some((key) => key.startsWith(`${RELEASES_PREFIX}${manifest.version}/`) && marks.some((mark) => markCovers(mark, key))))
    throw errors.versionConflict(manifest.version, bucket.description, 'is marked for removal: build again so that the version moves on');
  const markedVersions = new Set(
    completeVersionsIn(keys).complete.filter((v) => marks.some((mark) => markCovers(mark, releaseManifestKey(v)))),
  );
  const { pruned, cleaned } = pruningPlan(
    keys.filter((key) => !markedVersions.has(key.split('/')[1]!)),
    options.keep,
    manifest.version,
  );
  // The release it replaces stays kept for a rollback, unless pruned now: then its damage no longer matters.
  const kept = current && !pruned.includes(current.version) ? current : null;
  const { repairs, unrepairable } = kept ? await planRepairs(bucket, kept, copies) : { repairs: [], unrepairable: [] };
  return {
    version: manifest.version,
    current,
    currentTag,
    uploads: FORMATS.map((format) => ({ key: releaseFileKey(manifest.version, format), bytes: release.files[format] })),
    repairs,
    unrepairable,
    switch: { from: current?.version ?? null, to: manifest.version },
    resign: null,
    next: nextCurrent(manifest, current, options.signing),
    prune: pruned,
    clean: cleaned,
  };
}

/** True when the plan (or its summary) changes nothing in the bucket. */
export const changesNothing = (plan: Pick<PublicationPlan | PlanSummary, 'uploads' | 'repairs' | 'switch' | 'resign'>) =>
  plan.uploads.length === 0 && plan.repairs.length === 0 && plan.switch === null && plan.resign === null;

/**
 * What a dry run says of its plan, `where` the bucket when it is named: "dry run: would publish …",
 * "dry run: … is current and whole, nothing to publish".
 */
export function dryRunLine(plan: PlanSummary, where = ''): string {
  return changesNothing(plan)
    ? `dry run: ${planHeadline(plan)}${where}, nothing to publish`
    : `dry run: would ${planHeadline(plan)}${where}`;
}

export type PlanSummary = ReturnType<typeof summarisePlan>;

/** The plan as data for `--json` (keys, not bytes). */
export function summarisePlan(plan: PublicationPlan) {
  return {
    version: plan.version,
    current: plan.current?.version ?? null,
    uploads: plan.uploads.map((upload) => upload.key),
    repairs: plan.repairs.map(({ version, key, from, problem }) => ({ version, key, from, problem })),
    unrepairable: plan.unrepairable,
    switch: plan.switch,
    resign: plan.resign,
    expires: plan.next?.expires ?? null,
    prune: plan.prune,
    clean: plan.clean,
  };
}

/** The plan in a few words: "publish 20261201.1 (current: 20261101.1)", "repair 1 file(s) of 20261101.1", "… is current and whole". */
export function planHeadline(plan: PlanSummary): string {
  const repairs = plan.repairs.length > 0 ? `repair ${plan.repairs.length} file(s) of ${plan.repairs[0]!.version}` : null;
  if (plan.switch) return `publish ${plan.version} (current: ${plan.switch.from ?? 'none'})${repairs ? `, ${repairs}` : ''}`;
  const resign = plan.resign ? `re-sign ${plan.version} (${plan.resign})` : null;
  const parts = [repairs, resign].filter(Boolean);
  return parts.length > 0 ? parts.join(', ') : `${plan.version} is current and whole`;
}

async function refuseConflicts(bucket: Bucket, manifest: Manifest, current: Manifest | null): Promise<void> {
  const kept = await readReleaseManifest(bucket, manifest.version);
  if (kept && !sameFiles(kept, manifest)) throw errors.versionConflict(manifest.version, bucket.description);
  if (current && compareVersions(manifest.version, current.version) < 0)
    throw errors.versionBehind(manifest.version, current.version, bucket.description);
}

/** Each damaged file of `manifest`'s release, with the intact bytes to write back where some source holds them. */
async function planRepairs(
  bucket: Bucket,
  manifest: Manifest,
  sources: readonly CopySource[],
): Promise<{ repairs: PlannedRepair[]; unrepairable: string[] }> {
  const repairs: PlannedRepair[] = [];
  const unrepairable: string[] = [];
  for (const { format, key, problem } of await bucketFileDamage(bucket, manifest)) {
    const found = await intactFile(manifest, format, sources);
    if (found) repairs.push({ version: manifest.version, key, bytes: found.bytes, problem, from: found.from });
    else unrepairable.push(`${problem}, and no intact copy is at hand`);
  }
  return { repairs, unrepairable };
}

/** What a prune removes, given the bucket's keys; `current` counts as complete even before its upload (dry runs). */
export function pruningPlan(keys: string[], keep: number, current: string): { pruned: string[]; cleaned: string[] } {
  const { complete, orphans } = completeVersionsIn(keys);
  return {
    pruned: versionsToPrune([...new Set([...complete, current])], keep, current),
    cleaned: orphans.filter((version) => version !== current),
  };
}
