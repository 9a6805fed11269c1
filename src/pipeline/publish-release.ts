import type { CopySource } from '../publish/intact-copies.ts';
import type { PublishResult, ReleaseFiles } from '../publish/bucket-releases.ts';
import type { Bucket } from '../storage/bucket.ts';
import { PUBLISH_STEPS, publicationResult, type PublishState } from './publish-steps.ts';
import { runSteps, type StepReport } from './step-runner.ts';

export interface PublishOptions {
  keep: number;
  /** Where intact bytes of a damaged kept release may be found (the local copies). */
  copies?: readonly CopySource[];
  /** Each step's lines, for the operator. */
  onStep?: StepReport;
}

/**
 * Publishes a release to a bucket with the pipeline's publish steps (upload and read back, switch,
 * prune): any failure before the switch leaves the previous release current and whole.
 * Re-publishing the current release checks the bucket's files and repairs them when damaged.
 */
export async function publishRelease(bucket: Bucket, release: ReleaseFiles, options: PublishOptions): Promise<PublishResult> {
  const state = await runSteps<PublishState>(
    PUBLISH_STEPS,
    { bucket, keep: options.keep, release, copies: options.copies },
    { report: options.onStep },
  );
  return publicationResult(state.plan!);
}
