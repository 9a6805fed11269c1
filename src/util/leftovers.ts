import { readdir, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { fileSystemNow } from './file-clock.ts';

/** What a crashed run leaves: temporary files of atomic writes, and release folders being built or replaced. */
const LEFTOVER = /^\..+\.(tmp|building-[A-Za-z0-9]+(\.replaced)?)$/;

/** A leftover younger than this may belong to a run still going (a manual build beside cron): left alone. */
export const LEFTOVER_MIN_AGE_MS = 60 * 60_000;

/**
 * Removes what crashed runs left in these folders (and their subfolders, a few levels down):
 * `.<name>.<random>.tmp` files and `.<name>.building-<random>` folders older than an hour, by the
 * clock of the file system that holds them (util/file-clock.ts). Returns what it removed, for the
 * run to say so.
 */
export async function cleanLeftovers(dirs: string[], depth = 3): Promise<string[]> {
  const removed: string[] = [];
  let now: Date | null = null;
  const visit = async (dir: string, level: number): Promise<void> => {
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      const path = join(dir, entry.name);
      if (LEFTOVER.test(entry.name)) {
        const info = await stat(path).catch(() => null);
        if (info && now!.getTime() - info.mtimeMs >= LEFTOVER_MIN_AGE_MS) {
          await rm(path, { recursive: true, force: true });
          removed.push(path);
        }
      } else if (entry.isDirectory() && level < depth) {
        await visit(path, level + 1);
      }
    }
  };
  for (const dir of dirs) {
    now = await fileSystemNow(dir);
    if (now) await visit(dir, 0);
  }
  return removed;
}

/**
 * Undoes a replacement of a release folder cut short between its two renames (writeReleaseDir):
 * when `target` is missing and the old release waits beside it as `.<name>.building-*.replaced`,
 * it goes back in place, so the old or the new release is always there. Returns the folder
 * restored, or null when there was nothing to do.
 */
export async function recoverReleaseDir(target: string): Promise<string | null> {
  if (
    await stat(target).then(
      () => true,
      () => false,
    )
  )
    return null;
  const prefix = `.${basename(target)}.building-`;
  const entries = await readdir(dirname(target)).catch(() => [] as string[]);
  const retired = entries.filter((name) => name.startsWith(prefix) && name.endsWith('.replaced'));
  if (retired.length === 0) return null;
  const newest = (
    await Promise.all(retired.map(async (name) => ({ name, mtime: (await stat(join(dirname(target), name))).mtimeMs })))
  ).sort((a, b) => b.mtime - a.mtime)[0]!;
  await rename(join(dirname(target), newest.name), target);
  return join(dirname(target), newest.name);
}
