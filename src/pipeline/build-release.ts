import { BUILD_STEPS, type BuildState } from './build-steps.ts';
import type { BuildOptions, BuiltRelease } from './built-release.ts';
import { runSteps } from './step-runner.ts';

/**
 * Computes a release from the sources with the pipeline's build steps (parse, select the tariff
 * in force, add barcodes, check against the previous release, render the three formats and the
 * manifest). Writes nothing outside `scratchDir`; putting the release in place is the write
 * step's job (`writeReleaseDir`).
 */
export async function buildRelease(options: BuildOptions): Promise<BuiltRelease> {
  const state: BuildState = {
    ...options,
    documents: options.sources,
    previousDataset: options.previousDataset ?? null,
    timings: {},
  };
  await runSteps(BUILD_STEPS, state);
  return state.built!;
}
