import type { CopySource } from '../publish/intact-copies.ts';
import type { PublishResult, ReleaseFiles } from '../publish/bucket-releases.ts';
import type { Bucket } from '../storage/bucket.ts';
import { publicationResult, publishSteps } from './publish-steps.ts';
import { StepRunner, type StepReport } from './step-runner.ts';

export interface PublishOptions {
  keep: number;
  /** Where intact bytes of a damaged kept release may be found (the local copies). */
  copies?: readonly CopySource[];
  /** Each step's lines, for the operator. */
  onStep?: StepReport;
}

/**
 * Publishes a release to a bucket with the pipeline's publish steps (plan, upload and read back,
 * switch, prune): any failure before the switch leaves the previous release current and whole.
 * Re-publishing the current release checks the bucket's files and repairs them when damaged.
 */
export async function publishRelease(bucket: Bucket, release: ReleaseFiles, options: PublishOptions): Promise<PublishResult> {
  const runner = new StepRunner({ report: options.onStep });
  return publicationResult(await publishSteps(runner, { bucket, keep: options.keep, copies: options.copies }, release));
}
