import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TariffError } from '../errors.ts';
import { faultDetail, machineFault } from './machine-fault.ts';

/**
 * A private folder (0700) of the temporary folder for a command's scratch files, as `mkdtemp`
 * makes it. The temporary folder is TMPDIR, else /tmp: when it cannot hold the folder (read-only,
 * as the root of a hardened container; missing; full; not this user's), the error names it and
 * what to do, never "internal error".
 */
export async function makeScratchFolder(prefix: string): Promise<string> {
  const base = tmpdir();
  try {
    return await mkdtemp(join(base, prefix));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const fault = machineFault(error);
    if (!fault && code !== 'ENOENT' && code !== 'ENOTDIR') throw error;
    const detail = fault ? faultDetail({ ...fault, path: base }) : `${base}: the temporary folder does not exist (${code})`;
    throw new TariffError(
      'machine_fault',
      `cannot make a scratch folder in the temporary folder: ${detail}`,
      `Set TMPDIR to a folder this user can write (it need not outlive the command), or mount one at ${base}; with a read-only root (a hardened container), mount an emptyDir or tmpfs at /tmp.`,
      1,
      { condition: fault?.condition ?? 'permission_denied' },
    );
  }
}
