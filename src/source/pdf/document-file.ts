import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { machineFault, machineFaultError } from '../../util/machine-fault.ts';
import { onStop } from '../../util/orderly-stop.ts';

/**
 * Runs `read` with the document written once to a private file (0600 in a 0700 folder of the
 * temporary folder, TMPDIR), which every reader of it opens by path: no reader is sent a copy, and
 * none holds the file in memory (PDFium reads it a block at a time). The file is the command's own
 * copy of the bytes it checked, never a path another process may change under it. Removed when the
 * reading ends, and by a stop on a signal.
 */
export async function withDocumentFile<T>(bytes: Uint8Array, read: (path: string) => Promise<T>): Promise<T> {
  let folder: string;
  try {
    folder = await mkdtemp(join(tmpdir(), 'tariff-pdf-'));
    await writeFile(join(folder, 'document.pdf'), bytes, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    const fault = machineFault(error);
    if (!fault) throw error;
    throw machineFaultError({ ...fault, path: fault.path ?? tmpdir() }, 'the PDF reader (its temporary folder is TMPDIR)');
  }
  const remove = () => rm(folder, { recursive: true, force: true });
  const unregister = onStop({ what: `the PDF reader's copy ${folder} removed`, undo: remove });
  try {
    return await read(join(folder, 'document.pdf'));
  } finally {
    unregister();
    await remove();
  }
}
