import type { CopySource } from '../../src/publish/intact-copies.ts';
import type { PublishResult, ReleaseFiles } from '../../src/publish/bucket-releases.ts';
import type { Bucket } from '../../src/storage/bucket.ts';
import { publicationResult, publishSteps } from '../../src/pipeline/publish-steps.ts';
import { StepRunner, type StepReport } from '../../src/pipeline/step-runner.ts';

export interface PublishOptions {
  keep: number;
  /** Where intact bytes of a damaged kept release may be found (the local copies). */
  copies?: readonly CopySource[];
  /** Each step's lines, for the operator. */
  onStep?: StepReport;
  /** How long a mark waits before a later publish deletes it (default 0: the next publish). */
  retentionMs?: number;
}

/**
 * For tests and benchmarks, which publish a release built in memory (`tariff publish` verifies a
 * folder first: pipeline/run-publish.ts). Publishes a release to a bucket with the pipeline's publish steps (plan, upload and read back,
 * switch, prune): any failure before the switch leaves the previous release current and whole.
 * Re-publishing the current release checks the bucket's files and repairs them when damaged.
 */
export async function publishRelease(bucket: Bucket, release: ReleaseFiles, options: PublishOptions): Promise<PublishResult> {
  const runner = new StepRunner({ report: options.onStep });
  const run = { storeNow: () => new Date(), retentionMs: options.retentionMs ?? 0 };
  return publicationResult(await publishSteps(runner, { bucket, keep: options.keep, copies: options.copies, run }, release));
}
