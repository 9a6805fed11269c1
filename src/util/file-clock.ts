import { randomBytes } from 'node:crypto';
import { open, unlink } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * The clock of the file system holding `dir`, read from the time it gives a file made there now:
 * a file's age is the difference of two times of that clock, never of a file's time and this
 * machine's (a folder on another machine's file system, or this machine's clock set wrong, would
 * make a run's fresh file look old, or a crashed run's old one young). Null when nothing can be
 * made there (missing, unwritable): what is judged by age there is then left alone. The probe's
 * name is a leftover's (`.clock.<random>.tmp`), so a kill between its two steps leaves nothing for long.
 */
export async function fileSystemNow(dir: string): Promise<Date | null> {
  const probe = join(dir, `.clock.${randomBytes(6).toString('hex')}.tmp`);
  let handle;
  try {
    handle = await open(probe, 'wx');
  } catch {
    return null;
  }
  try {
    return (await handle.stat()).mtime;
  } finally {
    await handle.close();
    await unlink(probe).catch(() => undefined);
  }
}
