import { mkdir, readFile, rename, rm, rmdir, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import lockfile from 'proper-lockfile';
import { errors } from '../errors.ts';
import { fileSystemNow } from './file-clock.ts';
import { holderState, thisProcess, type ProcessIdentity } from './process-identity.ts';

/** Beside the lock's folder (which must stay empty for its removal): who holds it, so that a run after a killed one knows it is gone. */
const holderFile = (lockfilePath: string) => `${lockfilePath}.holder.json`;
/** A takeover cut short leaves its guard folder: older than this, it is a dead run's. */
const TAKEOVER_STALE_MS = 10_000;

/**
 * Takes `<dir>/<name>.lock` so that two overlapping cron runs cannot both publish. The holder
 * refreshes the lock while it runs and records who it is; a lock whose holder provably no longer
 * runs (a process of this machine and PID namespace, killed or crashed) is taken over at once, any
 * other once it is older than `staleMs`. Returns the release function.
 */
export async function acquireLock(dir: string, name: string, staleMs: number): Promise<() => Promise<void>> {
  // A data dir made here is its owner's alone (0700): it holds the registry, mails with live links, backups.
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const lockfilePath = join(dir, `${name}.lock`);
  const take = async () => {
    const release = await lockfile.lock(dir, {
      lockfilePath,
      realpath: false,
      retries: 0,
      stale: Math.max(staleMs, 2_000),
      update: Math.max(Math.floor(staleMs / 4), 1_000),
    });
    // Best effort: a lock whose holder is not named (a full disk) is still a lock, taken over only once
    // stale. Whole or not at all (written aside, then renamed): a run that finds the lock never reads
    // half a name and waits it out. The aside file has one name, so what a run killed while writing
    // it left is overwritten by the next holder's, never left behind.
    const aside = `${holderFile(lockfilePath)}.tmp`;
    await writeFile(aside, JSON.stringify(thisProcess()))
      .then(() => rename(aside, holderFile(lockfilePath)))
      .catch(() => {});
    return async () => {
      await rm(holderFile(lockfilePath), { force: true });
      await release();
    };
  };
  try {
    return await take();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ELOCKED') throw error;
    if (await takeOverFromDead(lockfilePath)) {
      try {
        return await take();
      } catch (again) {
        if ((again as NodeJS.ErrnoException).code !== 'ELOCKED') throw again;
      }
    }
    throw errors.locked(lockfilePath);
  }
}

async function readHolder(lockfilePath: string): Promise<Partial<ProcessIdentity> | null> {
  try {
    return JSON.parse(await readFile(holderFile(lockfilePath), 'utf8')) as Partial<ProcessIdentity>;
  } catch {
    // Not written yet (the holder is between taking the lock and naming itself), or another version's lock: not provably gone.
    return null;
  }
}

/**
 * Removes a lock whose holder is provably gone, under a guard folder so that of two runs finding
 * it at once only one removes it (the other could otherwise remove the lock the first just took).
 */
async function takeOverFromDead(lockfilePath: string): Promise<boolean> {
  const holder = await readHolder(lockfilePath);
  if (holderState(holder) !== 'gone') return false;
  const guard = `${lockfilePath}.takeover`;
  try {
    await mkdir(guard);
  } catch {
    // Its age by the clock of the file system that dated it (util/file-clock.ts).
    const now = await fileSystemNow(dirname(guard));
    const age = await stat(guard).then(
      (found) => (now ? now.getTime() - found.mtimeMs : 0),
      () => 0,
    );
    if (age > TAKEOVER_STALE_MS) await rmdir(guard).catch(() => {});
    return false;
  }
  try {
    const still = await readHolder(lockfilePath);
    if (JSON.stringify(still) !== JSON.stringify(holder)) return false;
    await rm(holderFile(lockfilePath), { force: true });
    await rm(lockfilePath, { recursive: true, force: true });
    return true;
  } finally {
    await rmdir(guard).catch(() => {});
  }
}
