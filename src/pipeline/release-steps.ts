import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Settings } from '../config/settings.ts';
import type { Barcode, Dataset } from '../dataset/model.ts';
import { errors } from '../errors.ts';
import type { SourceReport } from '../fetch/fetch-all.ts';
import type { SourceDocument } from '../source/source-types.ts';
import type { Manifest } from '../release/manifest.ts';
import { verifyRelease } from '../release/verify-release.ts';
import { writeReleaseDir } from '../release/write-release-dir.ts';
import { BUILD_STEPS, type BuildState } from './build-steps.ts';
import { PUBLISH_STEPS, type PublishState } from './publish-steps.ts';
import type { Step } from './step-runner.ts';

/** Where a run's inputs come from: the command decides (the authority's pages, files, the bundled lists). */
export interface ReleaseInputs {
  /** The source documents, with what fetching each saw (nothing for local files). */
  documents: (say: (line: string) => void) => Promise<{ documents: SourceDocument[]; reports: SourceReport[] }>;
  /** The approved matches to add: the --barcodes list and the registry's. */
  barcodes: () => Promise<Barcode[]>;
  /** The release this one follows (the bucket's current one, or --previous), its rows, and the versions taken. */
  previous: (say: (line: string) => void) => Promise<{ manifest: Manifest | null; dataset: Dataset | null; takenVersions: string[] }>;
}

export interface ReleaseState extends BuildState, Omit<PublishState, 'bucket' | 'keep'> {
  inputs: ReleaseInputs;
  reports: SourceReport[];
  /** The bucket to publish to, when the run publishes. */
  bucket?: PublishState['bucket'];
  keep: number;
  /** Where the release is written on disk, and what else goes with it (the provenance of a published release). */
  out?: { dir: string; extra?: Record<string, () => Promise<unknown>> };
  /** Set by the write step. */
  written?: string;
}

/** What a run of the pipeline starts from; everything else is filled in by its steps. */
export interface ReleaseRun {
  settings: Settings;
  now: () => Date;
  date: string;
  allowShrink: boolean;
  scratchDir: string;
  inputs: ReleaseInputs;
  destination: string;
  out?: ReleaseState['out'];
  bucket?: ReleaseState['bucket'];
  copies?: ReleaseState['copies'];
}

/** A new run's state: the settings' base URL, shrink guard and retention, and nothing read yet. */
export function releaseState(run: ReleaseRun): ReleaseState {
  const { settings, now, date, allowShrink, scratchDir, inputs, destination, out, bucket, copies } = run;
  return {
    now,
    date,
    allowShrink,
    scratchDir,
    inputs,
    destination,
    out,
    bucket,
    copies,
    baseUrl: settings.baseUrl ?? 'http://127.0.0.1:8080/v1',
    maxShrinkPercent: settings.maxShrink,
    keep: settings.keep,
    documents: [],
    barcodes: [],
    previous: null,
    previousDataset: null,
    timings: {},
    reports: [],
  };
}

/** A publication whose plan uploads nothing (the release is current already): no folder to write or verify. */
const nothingToUpload = (state: ReleaseState) =>
  state.plan && state.plan.uploads.length === 0 ? `${state.plan.version} is current already` : null;

const FETCH: Step<ReleaseState> = {
  name: 'fetch',
  dryRunSafe: true,
  run: async (state, say) => {
    const { documents, reports } = await state.inputs.documents(say);
    if (documents.length === 0)
      throw errors.fetchFailed(reports.map((r) => r.url).join(', '), 'no list has ever been fetched successfully');
    const [barcodes, previous] = await Promise.all([state.inputs.barcodes(), state.inputs.previous(say)]);
    Object.assign(state, { documents, reports, barcodes, previous: previous.manifest, previousDataset: previous.dataset });
    state.takenVersions = previous.takenVersions;
    say(
      `${documents.length} document(s), ${barcodes.length} approved barcode(s), previous release ${previous.manifest?.version ?? 'none'}`,
    );
  },
};

const WRITE: Step<ReleaseState> = {
  name: 'write',
  dryRunSafe: false,
  skip: (state) => (state.out ? nothingToUpload(state) : 'no folder to write'),
  run: async (state, say) => {
    const dir = state.out!.dir.replace('{version}', state.built!.manifest.version);
    await writeReleaseDir(state.built!, dir);
    for (const [name, make] of Object.entries(state.out!.extra ?? {}))
      await writeFile(join(dir, name), `${JSON.stringify(await make(), null, 2)}\n`);
    state.written = dir;
    say(`${state.built!.manifest.version} in ${dir}`);
  },
  wouldDo: async (state) => [
    `write ${state.built!.manifest.version} in ${state.out!.dir.replace('{version}', state.built!.manifest.version)}`,
  ],
};

const VERIFY: Step<ReleaseState> = {
  name: 'verify',
  dryRunSafe: true,
  skip: nothingToUpload,
  run: async (state, say) => {
    const { manifest } = state.built!;
    // A dry run verifies a copy in the scratch folder: each format opened by its own engine all the same.
    const dir = state.written ?? join(state.scratchDir, 'verify');
    if (!state.written) await writeReleaseDir(state.built!, dir);
    const report = await verifyRelease(dir);
    if (!report.ok) throw errors.verifyFailed(dir, report.problems);
    say(`${manifest.version}: json, sqlite and docdb match the manifest and hold the same rows`);
  },
};

const [PLAN, ...APPLY] = PUBLISH_STEPS.map((step): Step<ReleaseState> => ({
  ...(step as unknown as Step<ReleaseState>),
  skip: (state) => (state.bucket ? (step.skip?.(state as PublishState) ?? null) : 'no bucket'),
}));

/** The publication is planned on the release as built: unchanged content is the current release, however compressed. */
const PLAN_BUILT: Step<ReleaseState> = {
  ...PLAN!,
  run: (state, say) => {
    const { manifest, files, unchanged } = state.built!;
    state.release = { manifest, files, ...(unchanged && state.previous ? { sameContentAs: state.previous.version } : {}) };
    return PLAN!.run(state, say);
  },
};

/**
 * The release pipeline, as one table run by one runner (step-runner.ts): fetch, parse, select,
 * assemble, check, build, plan, write, verify, upload, switch, prune. `tariff release` runs it whole;
 * each step says in a dry run what it would do when it is not safe to run.
 */
export const RELEASE_STEPS: Step<ReleaseState>[] = [FETCH, ...(BUILD_STEPS as Step<ReleaseState>[]), PLAN_BUILT, WRITE, VERIFY, ...APPLY];

/**
 * `tariff build`: the release pipeline up to writing the release folder, then verifying it (each
 * format opened by its own engine) before it is reported built; no bucket, no plan.
 */
export const BUILD_COMMAND_STEPS = [FETCH, ...(BUILD_STEPS as Step<ReleaseState>[]), WRITE, VERIFY];
