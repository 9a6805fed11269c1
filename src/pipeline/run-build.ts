import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Settings } from '../config/settings.ts';
import type { BuiltRelease } from '../release/build-release.ts';
import { readSources } from '../source/read-sources.ts';
import { recoverReleaseDir } from '../util/leftovers.ts';
import { approvedBarcodes, previousInFolder } from './release-inputs.ts';
import { BUILD_COMMAND_STEPS, releaseState } from './release-steps.ts';
import { runSteps, type StepReport } from './step-runner.ts';

export interface BuildRunOptions {
  settings: Settings;
  dataDir: string;
  now: () => Date;
  date: string;
  allowShrink: boolean;
  /** Files, folders and http(s) URLs of the authority's lists and notices (or XML feeds). */
  sources: string[];
  barcodesFile?: string;
  /** The release this one follows (a folder or its manifest.json): the version moves past it, the guards compare with it. */
  previous?: string;
  /** The folder to write (replaced whole, atomically). */
  out: string;
  dryRun?: boolean;
  report: StepReport;
}

/**
 * `tariff build` as a service: the release pipeline from reading the sources to writing the
 * release folder (release-steps.ts), with the previous release from a folder.
 */
export async function runBuild(options: BuildRunOptions): Promise<BuiltRelease> {
  // A run killed while replacing --out (or --previous) left the old release aside: put it back first.
  for (const dir of new Set([options.out, ...(options.previous ? [options.previous] : [])])) {
    const restored = await recoverReleaseDir(resolve(dir));
    if (restored) options.report('clean', `recovered ${dir} from ${restored}, left by an interrupted build`);
  }
  const scratchDir = await mkdtemp(join(tmpdir(), 'tariff-build-'));
  try {
    const { settings } = options;
    const state = releaseState({
      ...options,
      scratchDir,
      destination: options.out,
      inputs: {
        documents: async () => ({ documents: await readSources(options.sources, settings), reports: [] }),
        barcodes: () => approvedBarcodes(options.barcodesFile, settings, options.dataDir),
        previous: (say) => previousInFolder(options.previous, say),
      },
      out: { dir: options.out },
    });
    await runSteps(BUILD_COMMAND_STEPS, state, { dryRun: options.dryRun, report: options.report });
    return state.built!;
  } finally {
    await rm(scratchDir, { recursive: true, force: true });
  }
}
