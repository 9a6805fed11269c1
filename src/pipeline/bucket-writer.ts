import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Settings } from '../config/settings.ts';
import { acquireBucketLease } from '../publish/bucket-lease.ts';
import type { Bucket } from '../storage/bucket.ts';
import { acquireLock } from '../util/run-lock.ts';

export interface BucketWriterOptions {
  settings: Settings;
  dataDir: string;
  /** The command, as the lock names its holder to another writer ("publish", "history import"). */
  command: string;
  /** Where a warning goes (a store that ignores conditional writes). */
  warn: (line: string) => void;
  /** A dry run writes nothing, so it takes no lock: it may run beside a writer. */
  dryRun?: boolean;
}

/**
 * Runs `work` as the bucket's only writer: under the data dir's lock (runs on this machine), then
 * the bucket's writer lease (runs anywhere). Every command that writes a bucket goes through here.
 */
export async function asBucketWriter<T>(bucket: Bucket, options: BucketWriterOptions, work: () => Promise<T>): Promise<T> {
  if (options.dryRun) return work();
  const { settings } = options;
  const unlock = await acquireLock(options.dataDir, 'release', settings.lockStaleSeconds * 1000);
  try {
    const lease = await acquireBucketLease(bucket, {
      owner: `tariff ${options.command}`,
      host: hostname(),
      pid: process.pid,
      // A writer of this machine that no longer runs (killed, crashed) holds nothing: taken over at once.
      isGone: (holder) => holder.host === hostname() && holder.pid !== process.pid && !isRunning(holder.pid),
      // The lease's times are the machine's, whatever clock the release is dated by (SOURCE_DATE_EPOCH).
      now: () => new Date(),
      ttlMs: settings.lockStaleSeconds * 1000,
      waitMs: settings.bucketLockWaitSeconds * 1000,
      sleep: (ms) => sleep(ms),
    });
    if (lease.warning) options.warn(lease.warning);
    try {
      return await work();
    } finally {
      await lease.release();
    }
  } finally {
    await unlock();
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
