import { rm } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import { errors } from '../errors.ts';
import type { Settings } from '../config/settings.ts';
import type { BuiltRelease } from './built-release.ts';
import { readSources } from '../fetch/read-sources.ts';
import type { SourceDocument } from '../source/source-types.ts';
import { recoverReleaseDir } from '../util/leftovers.ts';
import { approvedBarcodes, keepInSnapshots, previousInFolder, snapshotBytes } from './release-inputs.ts';
import { runReleaseSteps } from './release-steps.ts';
import { StepRunner, type StepReport } from './step-runner.ts';
import { makeScratchFolder } from '../util/scratch-folder.ts';
import { keepSourcesInFolder } from './folder-sources.ts';

export interface BuildRunOptions {
  settings: Settings;
  dataDir: string;
  now: () => Date;
  date: string;
  allowShrink: boolean;
  /** Files, folders and http(s) URLs of the authority's lists and notices (or XML feeds). */
  sources: string[];
  barcodesFile?: string;
  /**
   * Effective dates of notices that state none, by document (its path, URL or file name): the
   * authority's previews are dated only by the page that links them.
   */
  noticeDates?: Map<string, string>;
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
export async function runBuild(options: BuildRunOptions): Promise<BuiltRelease & { stepTimings: Record<string, number> }> {
  // A run killed while replacing --out (or --previous) left the old release aside: put it back first.
  for (const dir of new Set([options.out, ...(options.previous ? [options.previous] : [])])) {
    const restored = await recoverReleaseDir(resolve(dir));
    if (restored) options.report('clean', `recovered ${dir} from ${restored}, left by an interrupted build`);
  }
  const scratchDir = await makeScratchFolder('tariff-build-');
  try {
    const { settings } = options;
    const runner = new StepRunner(options);
    const { built } = await runReleaseSteps(
      {
        settings,
        now: options.now,
        date: options.date,
        allowShrink: options.allowShrink,
        scratchDir,
        destination: options.out,
        inputs: {
          // Kept in the data dir's snapshots by digest, as a release's are: `tariff publish` of the
          // folder then keeps them in the bucket's sources/, and `verify --rebuild` finds them.
          documents: async () => {
            const keep = keepInSnapshots(options.dataDir, options.now);
            const read = await readSources(options.sources, settings, { parse: true, keep });
            return { documents: withNoticeDates(read, options.noticeDates ?? new Map()), reports: [] };
          },
          barcodes: () => approvedBarcodes(options.barcodesFile, settings, options.dataDir),
          previous: (say) => previousInFolder(options.previous, say),
        },
        out: { dir: options.out },
      },
      runner,
    );
    // The documents travel with the folder (sources/<sha256>): published from another data dir, it still keeps them.
    if (!options.dryRun) await keepSourcesInFolder(options.out, built.manifest, snapshotBytes(options.dataDir));
    return { ...built, stepTimings: runner.timings };
  } finally {
    await rm(scratchDir, { recursive: true, force: true });
  }
}

/** Gives each named document its notice date; a name that matches no document is a usage error, not a silent no-op. */
function withNoticeDates(documents: SourceDocument[], dates: Map<string, string>): SourceDocument[] {
  for (const name of dates.keys())
    if (!documents.some((doc) => doc.name === name || basename(doc.name) === name))
      throw errors.usage(`--notice-date ${name}=…: no source document is named ${name}`);
  return documents.map((doc) => {
    const date = dates.get(doc.name) ?? dates.get(basename(doc.name));
    return date ? { ...doc, noticeDate: date } : doc;
  });
}
