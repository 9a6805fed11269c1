import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import lockfile from 'proper-lockfile';
import { errors } from '../errors.ts';

/**
 * Takes `<dir>/<name>.lock` so that two overlapping cron runs cannot both publish. The holder
 * refreshes the lock while it runs; a lock left by a crashed run is taken over once it is older
 * than `staleMs`. Returns the release function.
 */
export async function acquireLock(dir: string, name: string, staleMs: number): Promise<() => Promise<void>> {
  await mkdir(dir, { recursive: true });
  const lockfilePath = join(dir, `${name}.lock`);
  try {
    return await lockfile.lock(dir, {
      lockfilePath,
      realpath: false,
      retries: 0,
      stale: Math.max(staleMs, 2_000),
      update: Math.max(Math.floor(staleMs / 4), 1_000),
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOCKED') throw errors.locked(lockfilePath);
    throw error;
  }
}
