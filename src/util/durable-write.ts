import { open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { onStop } from './orderly-stop.ts';

/** Writes a file and flushes it to disk before returning, so a rename after it publishes whole bytes. */
export async function writeFileDurable(path: string, data: Uint8Array | string, mode = 0o666): Promise<void> {
  const handle = await open(path, 'w', mode);
  try {
    await handle.writeFile(data);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Flushes a folder's entries (a rename into it) to disk: without it a power cut can undo the rename. */
export async function syncFolder(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Puts a file written elsewhere in place for good: its bytes flushed, renamed over `to`, the
 * folder flushed. After a power cut `to` is the old file or the new one, whole.
 */
export async function renameDurable(from: string, to: string): Promise<void> {
  const handle = await open(from, 'r+');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(from, to);
  await syncFolder(dirname(to));
}

/**
 * Writes to a temporary sibling, then renames it over `path` and flushes the folder: readers see
 * the old or the new file, never a part, also after a power cut. `mode` (before the umask) is the
 * new file's from its first byte, e.g. 0o600 for secrets.
 */
export async function writeFileAtomic(path: string, data: Uint8Array | string, mode = 0o666): Promise<void> {
  await withTemporary(temporaryBeside(path), async (temporary) => {
    await writeFileDurable(temporary, data, mode);
    await rename(temporary, path);
  });
  await syncFolder(dirname(path));
}

/** A temporary name beside `path` (`.<name>.<random>.tmp`), on its file system, as cleanLeftovers knows them. */
export function temporaryBeside(path: string): string {
  return join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
}

/**
 * Runs `work` with the temporary file `path`, removed after it whatever happens, and by a stop on a
 * signal meanwhile (one killed outright leaves it to cleanLeftovers); a temporary that `work`
 * renamed into place is gone from `path` already.
 */
export async function withTemporary<T>(path: string, work: (path: string) => Promise<T>): Promise<T> {
  const done = onStop({ what: `${path} removed`, undo: () => rm(path, { force: true }) });
  try {
    return await work(path);
  } finally {
    await rm(path, { force: true });
    done();
  }
}
