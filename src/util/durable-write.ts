import { open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';

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

/**
 * Writes to a temporary sibling, then renames it over `path`: readers see the old or the new file,
 * never a part. `mode` (before the umask) is the new file's from its first byte, e.g. 0o600 for secrets.
 */
export async function writeFileAtomic(path: string, data: Uint8Array | string, mode = 0o666): Promise<void> {
  const temporary = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    await writeFileDurable(temporary, data, mode);
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}
