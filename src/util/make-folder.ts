import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';

/**
 * `mkdir -p`, with the true cause when it cannot: Node's recursive mkdir says ENOENT when a folder
 * above cannot be made (a read-only file system, a folder the user may not write, as a unit under
 * ProtectSystem=strict meets it), which reads like a bug. Then the missing folders are made one by
 * one, and the first that fails says why (EROFS, EACCES) with its own path.
 */
export async function makeFolder(path: string, mode?: number): Promise<void> {
  try {
    await mkdir(path, { recursive: true, mode });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    const missing: string[] = [];
    for (let folder = path; !existsSync(folder) && dirname(folder) !== folder; folder = dirname(folder)) missing.unshift(folder);
    for (const folder of missing)
      await mkdir(folder, { mode }).catch((cause: NodeJS.ErrnoException) => {
        if (cause.code !== 'EEXIST') throw cause;
      });
    // Made since by another writer, or the cause was not where it looked: the first error, then.
    if (!existsSync(path)) throw error;
  }
}
