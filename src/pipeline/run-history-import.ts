import { isTariffError } from '../errors.ts';
import { readSources } from '../fetch/read-sources.ts';
import { importKeys, readHistoryManifest } from '../history/history-store.ts';
import { openBucket } from '../storage/open-bucket.ts';
import { asBucketWriter, type BucketWriterEdges, type BucketWriterRun } from './bucket-writer.ts';
import type { Bucket } from '../storage/bucket.ts';
import { collectGarbage } from './bucket-garbage.ts';
import { keepInSnapshots, snapshotBytes } from './release-inputs.ts';
import { importHistory, removeHistoryImport, type HistoryRemoval, type HistoryUpdate } from './record-history.ts';

export interface HistoryRunOptions extends BucketWriterEdges {
  env: NodeJS.ProcessEnv;
}

export interface HistoryImportOptions extends HistoryRunOptions {
  /** Archived lists: PDF files, or folders of them. */
  paths: string[];
  /** The last day whose list may be read (today, or a later day named on purpose). */
  latest: string;
  now: Date;
}

/**
 * What a history command's new history no longer names (the file it replaced, a record and
 * document taken out) is marked, and what was marked a retention ago deleted.
 */
const sweep = (bucket: Bucket, run: BucketWriterRun, command: string, keep: number) =>
  collectGarbage(bucket, { storeNow: run.storeNow(), retentionMs: run.retentionMs, by: `tariff ${command}`, keep });

/** Whether the bucket's history names every import record given (false when it cannot be read now). */
async function importStands(bucket: Bucket, records: string[]): Promise<boolean> {
  try {
    const names = new Set(await importKeys(bucket, await readHistoryManifest(bucket)));
    return records.every((key) => names.has(key));
  } catch {
    return false;
  }
}

/**
 * `tariff history import`: as the bucket's only writer (a release run writes the history too),
 * reads the archived lists into the bucket's price history.
 */
export async function runHistoryImport(options: HistoryImportOptions): Promise<HistoryUpdate & { bucket: string }> {
  const { settings, dataDir } = options;
  // Kept in the snapshots as read (their bytes are let go once parsed): the import keeps them in the bucket's sources/.
  const documents = await readSources(options.paths, settings, { parse: true, keep: keepInSnapshots(dataDir, () => options.now) });
  const bucket = await openBucket(settings.bucket, { dataDir, settings, env: options.env });
  const update = await asBucketWriter(bucket, { ...options, command: 'history import' }, async (leased, run) => {
    const done = await importHistory(leased, documents, { latest: options.latest, now: options.now, sources: snapshotBytes(dataDir) });
    try {
      await sweep(leased, run, 'history import', settings.keep);
    } catch (error) {
      // The import is in the history once its manifest was swapped (its answer late or lost, the
      // lease gone by then): what failed is only the clean-up, which the next writer does. Said as
      // that only while the bucket says so, read again now.
      if (!done.imported?.length || !(await importStands(bucket, done.imported))) throw error;
      options.warn(
        `the import is in the price history of ${bucket.description}; removing what it replaced was left to the next writer (${isTariffError(error) ? `${error.code}: ` : ''}${(error as Error).message})`,
      );
    }
    return done;
  });
  return { ...update, bucket: bucket.description };
}

/** `tariff history remove`: one imported document taken back out, as the bucket's only writer (without --apply, a dry run). */
export async function runHistoryRemove(
  options: HistoryRunOptions & { source: string; apply: boolean },
): Promise<HistoryRemoval & { bucket: string }> {
  const { settings, dataDir } = options;
  const bucket = await openBucket(settings.bucket, { dataDir, settings, env: options.env });
  const removal = await asBucketWriter(bucket, { ...options, command: 'history remove', dryRun: !options.apply }, async (leased, run) => {
    const done = await removeHistoryImport(leased, options.source, options.apply);
    if (options.apply) await sweep(leased, run, 'history remove', settings.keep);
    return done;
  });
  return { ...removal, bucket: bucket.description };
}
