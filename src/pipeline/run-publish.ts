import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { errors } from '../errors.ts';
import { localCopies } from '../publish/intact-copies.ts';
import { signingOf } from '../publish/signing-key-file.ts';
import { summarisePlan, type PlanSummary } from '../publish/plan-publication.ts';
import type { PublishResult, ReleaseFiles } from '../publish/bucket-releases.ts';
import { fileName, FORMATS, MANIFEST_FILE, manifestSchema, type Format } from '../release/manifest.ts';
import { verifyRelease } from '../release/verify-release.ts';
import { asBucketWriter, type BucketWriterEdges, type BucketWriterRun } from './bucket-writer.ts';
import { snapshotBytes } from './release-inputs.ts';
import { documentsNotAtHand, firstOf, FOLDER_SOURCES, folderSourceBytes } from './folder-sources.ts';
import { historyStep } from './record-history.ts';
import type { Bucket } from '../storage/bucket.ts';
import { openBucket } from '../storage/open-bucket.ts';
import { afterSwitch, publicationResult, publishSteps } from './publish-steps.ts';
import { confirmCurrent } from '../publish/bucket-releases.ts';
import { StepRunner, type StepReport } from './step-runner.ts';

export interface PublishRunOptions extends BucketWriterEdges {
  env: NodeJS.ProcessEnv;
  now: () => Date;
  /** A release folder written by `tariff build`. */
  dir: string;
  dryRun?: boolean;
  /** A folder of the release's documents by digest, besides the release folder's own sources/ and the snapshots. */
  sources?: string;
  /** Publish even when a document it was built from is nowhere at hand (the bucket then cannot rebuild it). */
  withoutSources?: boolean;
  report: StepReport;
}

/** Reads a release folder into memory once it verifies (every format opened by its own engine). */
function verifyFolder(runner: StepRunner, dir: string): Promise<ReleaseFiles> {
  return runner.compute('verify', async (say) => {
    const report = await verifyRelease(dir);
    if (!report.ok) throw errors.verifyFailed(dir, report.problems);
    const manifest = manifestSchema.parse(JSON.parse(await readFile(join(dir, MANIFEST_FILE), 'utf8')));
    const read = (format: Format) => readFile(join(dir, fileName(format)));
    const files = Object.fromEntries(
      await Promise.all(FORMATS.map(async (format) => [format, await read(format)])),
    ) as ReleaseFiles['files'];
    say(`${manifest.version} in ${dir}: json, sqlite and docdb match the manifest and hold the same rows`);
    return { manifest, files };
  });
}

/**
 * `tariff publish` as a service: verify a release folder, then the publish steps (upload and read
 * back, switch, prune); with `dryRun`, what they would do.
 */
export async function runPublish(
  options: PublishRunOptions,
): Promise<{ result: PublishResult | null; version: string; bucket: string; plan: PlanSummary }> {
  const { settings } = options;
  const bucket = await openBucket(settings.bucket, { dataDir: options.dataDir, settings, env: options.env });
  // A damaged kept release is repaired from its local copy when there is one.
  const copies = [localCopies(join(options.dataDir, 'releases'))];
  const runner = new StepRunner(options);
  const release = await verifyFolder(runner, options.dir);
  const signing = await signingOf(settings, options.now);
  // The documents: the folder's own (tariff build keeps them), --sources, then this data dir's snapshots.
  const sources = firstOf(
    folderSourceBytes(join(options.dir, FOLDER_SOURCES)),
    ...(options.sources ? [folderSourceBytes(options.sources)] : []),
    snapshotBytes(options.dataDir),
  );
  const notAtHand = await documentsNotAtHand(release.manifest, sources);
  if (notAtHand.length > 0 && !options.withoutSources) throw errors.sourcesMissing(release.manifest.version, notAtHand);
  const publish = async (leased: Bucket, run: BucketWriterRun) => {
    const target = { bucket: leased, keep: settings.keep, copies, signing, sources, run, command: 'publish' };
    const plan = await publishSteps(runner, target, release);
    await afterSwitch(leased, options.dryRun ? null : plan, 'recording the price history', () => historyStep(runner, leased));
    if (!options.dryRun && plan.switch) await confirmCurrent(leased, plan.version);
    return plan;
  };
  const plan = await asBucketWriter(bucket, { ...options, command: 'publish' }, publish, (done) => done.switch !== null);
  return {
    result: options.dryRun ? null : publicationResult(plan),
    version: release.manifest.version,
    bucket: bucket.description,
    plan: summarisePlan(plan),
  };
}
