import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Settings } from '../config/settings.ts';
import type { Barcode } from '../dataset/model.ts';
import { errors } from '../errors.ts';
import type { PublicationPlan } from '../publish/plan-publication.ts';
import type { Manifest } from '../release/manifest.ts';
import { verifyRelease } from '../release/verify-release.ts';
import { writeReleaseDir } from '../release/write-release-dir.ts';
import type { AuthorityDocuments } from './authority-sources.ts';
import { describeCoverage } from './describe-sources.ts';
import { buildRelease } from './build-release.ts';
import type { BuiltRelease } from './built-release.ts';
import { applyPlan, planStep, type PublishTarget } from './publish-steps.ts';
import type { Say, StepRunner } from './step-runner.ts';
import { type PreviousRelease } from './release-inputs.ts';

/** Where a run's inputs come from: the command decides (the authority's pages, files, the bundled lists). */
export interface ReleaseInputs {
  /** The source documents, with what fetching each saw (nothing for local files). */
  documents: (say: Say) => Promise<AuthorityDocuments>;
  /** The approved matches to add: the --barcodes list and the registry's. */
  barcodes: () => Promise<Barcode[]>;
  /** The release this one follows (the bucket's current one, or --previous), its rows, and the versions taken. */
  previous: (say: Say) => Promise<PreviousRelease>;
}

/** What the fetch step gathered: everything the build reads. */
export interface FetchedInputs extends AuthorityDocuments {
  barcodes: Barcode[];
  previous: PreviousRelease;
}

/** Where the release is written on disk, and what else goes with it (the provenance of a published release). */
export interface ReleaseFolder {
  /** The folder; `{version}` stands for the version built. */
  dir: string;
  /** JSON files written beside the release, by name. */
  extra?: (built: BuiltRelease, fetched: FetchedInputs) => Promise<Record<string, unknown>>;
}

/** What a run of the pipeline starts from. */
export interface ReleaseRun {
  settings: Settings;
  now: () => Date;
  date: string;
  allowShrink: boolean;
  scratchDir: string;
  inputs: ReleaseInputs;
  destination: string;
  out: ReleaseFolder;
  /** The bucket to publish to, when the run publishes (`tariff build` does not). */
  publish?: Omit<PublishTarget, 'keep'>;
}

/** What a run did: what it read, built, planned (when it publishes) and wrote (none in a dry run). */
export interface ReleaseOutcome {
  fetched: FetchedInputs;
  built: BuiltRelease;
  plan: PublicationPlan | null;
  written: string | null;
}

function fetchStep(runner: StepRunner, inputs: ReleaseInputs): Promise<FetchedInputs> {
  return runner.compute('fetch', async (say) => {
    const { documents, reports, categories } = await inputs.documents(say);
    if (categories) say(describeCoverage(categories));
    if (documents.length === 0) throw errors.nothingFetched(reports.map((r) => r.url).join(', '));
    const [barcodes, previous] = await Promise.all([inputs.barcodes(), inputs.previous(say)]);
    say(
      `${documents.length} document(s), ${barcodes.length} approved barcode(s), previous release ${previous.manifest?.version ?? 'none'}`,
    );
    return { documents, reports, categories, barcodes, previous };
  });
}

function writeStep(runner: StepRunner, out: ReleaseFolder, built: BuiltRelease, fetched: FetchedInputs): Promise<string | null> {
  const { version } = built.manifest;
  const dir = out.dir.replace('{version}', version);
  return runner.effect('write', {
    run: async (say) => {
      await writeReleaseDir(built, dir);
      for (const [name, content] of Object.entries((await out.extra?.(built, fetched)) ?? {}))
        await writeFile(join(dir, name), `${JSON.stringify(content, null, 2)}\n`);
      say(`${version} in ${dir}`);
      return dir;
    },
    wouldDo: () => [`write ${version} in ${dir}`],
  });
}

/** Each format opened by its own engine; a dry run verifies a copy in the scratch folder all the same. */
function verifyStep(runner: StepRunner, built: BuiltRelease, written: string | null, scratchDir: string): Promise<void> {
  return runner.compute('verify', async (say) => {
    const dir = written ?? join(scratchDir, 'verify');
    if (!written) await writeReleaseDir(built, dir);
    const report = await verifyRelease(dir);
    if (!report.ok) throw errors.verifyFailed(dir, report.problems);
    say(`${built.manifest.version}: json, sqlite and docdb match the manifest and hold the same rows`);
  });
}

/** The publication is planned on the release as built: unchanged content is the current release, however compressed. */
async function planBuilt(runner: StepRunner, target: PublishTarget, built: BuiltRelease, previous: Manifest | null) {
  const { manifest, files, unchanged } = built;
  const sameContent = unchanged && previous ? { sameContentAs: previous.version } : {};
  return { target, plan: await planStep(runner, target, { manifest, files, ...sameContent }) };
}

/**
 * The release pipeline, as typed steps each reported by the runner: fetch, parse, select, assemble,
 * check, build, then, when it publishes, plan; write, verify (both passed over when the plan uploads
 * nothing: the release is current already), and upload, switch, prune. `tariff release` runs it
 * whole, `tariff build` up to verify; each step says in a dry run what it would do when it is not
 * safe to run.
 */
export async function runReleaseSteps(run: ReleaseRun, runner: StepRunner): Promise<ReleaseOutcome> {
  const fetched = await fetchStep(runner, run.inputs);
  const built = await buildRelease(
    {
      sources: fetched.documents,
      barcodes: fetched.barcodes,
      date: run.date,
      baseUrl: run.settings.baseUrl ?? 'http://127.0.0.1:8080/v1',
      previous: fetched.previous.manifest,
      previousDataset: fetched.previous.dataset,
      takenVersions: fetched.previous.takenVersions,
      allowShrink: run.allowShrink,
      maxShrinkPercent: run.settings.maxShrink,
      failedDocuments: fetched.reports.flatMap((report) => {
        const why = report.status === 'failed' ? (report.error ?? 'failed') : report.unreadable;
        return why === undefined ? [] : [why.includes(report.url) ? why : `${report.url}: ${why}`];
      }),
      now: run.now,
      scratchDir: run.scratchDir,
      destination: run.destination,
    },
    runner,
  );
  const publication = run.publish
    ? await planBuilt(runner, { ...run.publish, keep: run.settings.keep }, built, fetched.previous.manifest)
    : null;
  let written: string | null = null;
  if (publication && publication.plan.uploads.length === 0)
    for (const step of ['write', 'verify']) runner.skip(step, `${publication.plan.version} is current already`);
  else {
    written = await writeStep(runner, run.out, built, fetched);
    await verifyStep(runner, built, written, run.scratchDir);
  }
  if (publication) await applyPlan(runner, publication.target, built.manifest, publication.plan);
  return { fetched, built, plan: publication?.plan ?? null, written };
}
