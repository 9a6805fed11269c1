import type { BuiltRelease } from './built-release.ts';
import { readdir, readFile, rm } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { errors } from '../errors.ts';
import { summariseChanges, type ChangeSummary } from '../dataset/summarise-changes.ts';
import type { CategoryCoverage } from '../fetch/collect-documents.ts';
import type { SourceReport } from '../fetch/fetch-all.ts';
import { SnapshotStore } from '../fetch/snapshot-store.ts';
import { versionsToPrune } from '../publish/bucket-layout.ts';
import { localCopies } from '../publish/intact-copies.ts';
import { summarisePlan, type PlanSummary } from '../publish/plan-publication.ts';
import type { PublishResult } from '../publish/bucket-releases.ts';
import type { SourceDocument } from '../source/source-types.ts';
import { sha256Hex } from '../util/digests.ts';
import { writeReleaseDir } from '../release/write-release-dir.ts';
import type { Bucket } from '../storage/bucket.ts';
import { openBucket } from '../storage/open-bucket.ts';
import { asBucketWriter, type BucketWriterEdges, type BucketWriterRun } from './bucket-writer.ts';
import { dateInRome } from '../util/dates.ts';
import { cleanLeftovers } from '../util/leftovers.ts';
import { fetchFromAuthority } from './authority-sources.ts';
import { signingOf } from '../publish/signing-key-file.ts';
import { afterSwitch, publicationResult } from './publish-steps.ts';
import { confirmCurrent } from '../publish/bucket-releases.ts';
import { historyStep, type HistoryUpdate } from './record-history.ts';
import { approvedBarcodes, previousInBucket, snapshotBytes } from './release-inputs.ts';
import { publicDocumentName } from '../source/document-name.ts';
import { runReleaseSteps, type ReleaseInputs } from './release-steps.ts';
import { StepRunner, type StepReport } from './step-runner.ts';
import { isReleaseVersion } from '../release/release-version.ts';
import { makeScratchFolder } from '../util/scratch-folder.ts';
import { pruneUnneededSnapshots } from './snapshot-retention.ts';
import { firstOf, keepSourcesInFolder } from './folder-sources.ts';

export interface ReleaseRunOptions extends BucketWriterEdges {
  /** The SDK's variables for an S3 bucket (credentials, endpoint), from the environment at the edge. */
  env: NodeJS.ProcessEnv;
  now: () => Date;
  /** The day whose tariff in force is published (ISO date, Italian calendar). */
  date: string;
  /** Publishing a day other than today is refused unless this is set (a dry run changes nothing, so it may). */
  allowOtherDate?: boolean;
  allowShrink: boolean;
  barcodesFile?: string;
  /** Says what would be published, changing nothing: no snapshot kept, nothing written or uploaded. */
  dryRun?: boolean;
  /** With a dry run: a folder to write the candidate release in, for `tariff diff current <folder>`. */
  candidateDir?: string;
  /** Where the documents come from instead of the authority (`tariff start`: the bundled lists). */
  documents?: ReleaseInputs['documents'];
  report: StepReport;
  progress?: (label: string, done: number, total: number | null) => void;
  done?: (label: string) => void;
}

export interface ReleaseSummary {
  status: 'published' | 'unchanged' | 'repaired' | 're-signed' | 'dry-run';
  /** The day whose tariff was built, and today (Italian calendar): they differ only under --allow-other-date or a dry run. */
  date: string;
  today: string;
  fetch: SourceReport[];
  version: string;
  previousVersion: string | null;
  bucket: string;
  changesSince: string | null;
  changes: ChangeSummary;
  /** Which categories' lists the authority's pages linked, against those the run requires. */
  categories?: CategoryCoverage;
  /** Codes a list printed twice: the row kept and the one left out (docs/source-format.md). */
  duplicates: BuiltRelease['duplicates'];
  published?: PublishResult;
  /** What the publication does (a dry run) or did: uploads, repairs, switch, prune. */
  plan?: PlanSummary;
  /** The releases the price history recorded in this run (none when it was up to date). */
  history?: HistoryUpdate;
}

/**
 * The cron job as a service: under the data dir's lock, clears what crashed runs left, then runs
 * the release pipeline (release-steps.ts) against the bucket: fetch the authority's lists, build
 * the tariff in force on `date`, and publish it when its content changed (or the bucket's copy is
 * damaged). Every published release also gets a local copy with the provenance of its sources.
 */
export async function runRelease(options: ReleaseRunOptions): Promise<ReleaseSummary> {
  const { settings, dataDir } = options;
  const today = dateInRome(options.now());
  if (options.date !== today && !options.dryRun && !options.allowOtherDate) throw errors.dateNotToday(options.date, today);
  const bucket = await openBucket(settings.bucket, { dataDir, settings, env: options.env });
  return asBucketWriter(
    bucket,
    { ...options, command: 'release' },
    (leased, run) => releaseRun(options, leased, today, run),
    (summary) => summary.status === 'published',
  );
}

async function releaseRun(options: ReleaseRunOptions, bucket: Bucket, today: string, writer: BucketWriterRun): Promise<ReleaseSummary> {
  const { settings, dataDir } = options;
  const scratchDir = await makeScratchFolder('tariff-release-');
  try {
    // Under the lock no run of ours is writing: what is old and half-written is a crashed run's.
    if (!options.dryRun)
      for (const path of await cleanLeftovers([dataDir])) options.report('clean', `removed ${path}, left by an interrupted run`);
    // Every published release leaves a local copy: the intact bytes that repair a damaged bucket.
    const copies = [localCopies(join(dataDir, 'releases'))];
    const fetchAuthority: ReleaseInputs['documents'] = (say) =>
      fetchFromAuthority(settings, {
        dataDir,
        now: options.now,
        today: options.date,
        readOnly: options.dryRun,
        say,
        progress: options.progress,
        done: options.done,
      });
    const runner = new StepRunner(options);
    const { fetched, built, plan } = await runReleaseSteps(
      {
        settings,
        now: options.now,
        date: options.date,
        allowShrink: options.allowShrink,
        scratchDir,
        destination: bucket.description,
        inputs: {
          documents: options.documents ? keptInSnapshots(options.documents, dataDir, options) : fetchAuthority,
          barcodes: () => approvedBarcodes(options.barcodesFile, settings, dataDir),
          previous: (say) => previousInBucket(bucket, say, copies),
        },
        publish: {
          bucket,
          copies,
          signing: await signingOf(settings, options.now),
          sources: snapshotBytes(dataDir),
          run: writer,
          command: 'release',
        },
        out: {
          dir: join(dataDir, 'releases', '{version}'),
          // The provenance names the snapshots of the authority's documents (bundled ones have none).
          extra: options.documents
            ? undefined
            : async (release, { documents }) => ({
                'provenance.json': await provenance(release, documents, options.barcodesFile, dataDir),
              }),
        },
      },
      runner,
    );
    if (options.dryRun && options.candidateDir) {
      await writeReleaseDir(built, options.candidateDir);
      // With the documents it was built from (a dry run keeps no snapshot): a publish job elsewhere keeps them in the bucket.
      const inHand = new Map(fetched.documents.filter((doc) => doc.bytes.length > 0).map((doc) => [sha256Hex(doc.bytes), doc.bytes]));
      await keepSourcesInFolder(
        options.candidateDir,
        built.manifest,
        firstOf(async (sha256) => inHand.get(sha256) ?? null, snapshotBytes(dataDir)),
      );
      options.report('candidate', `${built.manifest.version} in ${options.candidateDir}`);
    }
    const published = !options.dryRun && plan ? publicationResult(plan) : undefined;
    const switched = options.dryRun ? null : plan;
    if (published?.status === 'published') {
      await afterSwitch(bucket, switched, 'removing old local copies', () =>
        pruneLocal(join(dataDir, 'releases'), settings.keep, built.manifest.version),
      );
      // Housekeeping, never a failure of the publication: what is not removed now goes next time.
      const pruned = await pruneUnneededSnapshots(bucket, dataDir).catch((error: unknown) => {
        options.warn(`snapshots not pruned (${(error as Error).message.split('\n')[0]}): the next publication tries again`);
        return 0;
      });
      if (pruned > 0) options.report('snapshots', `removed ${pruned} document(s) no kept release or list needs`);
    }
    // After the switch, and on every run: a run that failed here catches up on the next one.
    const history = await afterSwitch(bucket, switched, 'recording the price history', () => historyStep(runner, bucket));
    if (switched?.switch) await confirmCurrent(bucket, switched.version);
    const status = options.dryRun ? 'dry-run' : published && published.status !== 'already-current' ? published.status : 'unchanged';
    return {
      status,
      date: options.date,
      today,
      fetch: fetched.reports,
      ...(fetched.categories ? { categories: fetched.categories } : {}),
      version: built.manifest.version,
      previousVersion: fetched.previous.manifest?.version ?? null,
      bucket: bucket.description,
      changesSince: built.changesSince,
      changes: summariseChanges(built.changes),
      duplicates: built.duplicates,
      ...(published ? { published } : {}),
      ...(plan ? { plan: summarisePlan(plan) } : {}),
      ...(history ? { history } : {}),
    };
  } finally {
    await rm(scratchDir, { recursive: true, force: true });
  }
}

/**
 * What a published release was built from, beside what its manifest's provenance says: where each
 * source's snapshot is kept, and the --barcodes list. The digests are the manifest's, computed once by the build.
 */
async function provenance(release: BuiltRelease, documents: SourceDocument[], barcodes: string | undefined, dataDir: string) {
  const store = new SnapshotStore(dataDir);
  const digests = release.manifest.provenance?.documents ?? [];
  return {
    version: release.manifest.version,
    sources: documents.map((doc, i) => {
      const sha256 = digests[i]?.sha256 ?? sha256Hex(doc.bytes);
      return { url: doc.name, sha256, snapshot: relative(dataDir, store.path(sha256, doc.bytes)) };
    }),
    barcodes: barcodes ? { file: barcodes, sha256: sha256Hex(await readFile(barcodes)) } : null,
  };
}

/**
 * Documents given to the run (the bundled lists of `tariff start`), kept in the snapshots by their
 * SHA-256 as fetched ones are: the manifest names them by file name only, and `verify --rebuild`
 * finds their bytes there by digest.
 */
function keptInSnapshots(
  documents: ReleaseInputs['documents'],
  dataDir: string,
  options: { dryRun?: boolean; now: () => Date },
): ReleaseInputs['documents'] {
  return async (say) => {
    const given = await documents(say);
    const store = new SnapshotStore(dataDir, { readOnly: options.dryRun });
    for (const doc of given.documents)
      await store.store(doc.bytes, { url: publicDocumentName(doc.name), fetchedAt: options.now().toISOString() });
    return given;
  };
}

/** The local copies beyond `keep` go, never the one just published. */
async function pruneLocal(dir: string, keep: number, current: string): Promise<void> {
  const versions = (await readdir(dir).catch(() => [])).filter(isReleaseVersion);
  for (const version of versionsToPrune(versions, keep, current)) await rm(join(dir, version), { recursive: true, force: true });
}
