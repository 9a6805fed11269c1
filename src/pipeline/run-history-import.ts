import type { Settings } from '../config/settings.ts';
import { readSources } from '../fetch/read-sources.ts';
import { openBucket } from '../storage/open-bucket.ts';
import { acquireLock } from '../util/run-lock.ts';
import { importHistory, type HistoryUpdate } from './record-history.ts';

export interface HistoryImportOptions {
  settings: Settings;
  dataDir: string;
  env: NodeJS.ProcessEnv;
  /** Archived lists: PDF files, or folders of them. */
  paths: string[];
}

/**
 * `tariff history import`: under the release lock (a release run writes the history too), reads the
 * archived lists into the bucket's price history.
 */
export async function runHistoryImport(options: HistoryImportOptions): Promise<HistoryUpdate & { bucket: string }> {
  const { settings, dataDir } = options;
  const documents = await readSources(options.paths, settings);
  const unlock = await acquireLock(dataDir, 'release', settings.lockStaleSeconds * 1000);
  try {
    const bucket = await openBucket(settings.bucket, { dataDir, settings, env: options.env });
    return { ...(await importHistory(bucket, documents)), bucket: bucket.description };
  } finally {
    await unlock();
  }
}
