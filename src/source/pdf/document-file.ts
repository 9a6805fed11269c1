import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { machineFault, machineFaultError } from '../../util/machine-fault.ts';
import { onStop } from '../../util/orderly-stop.ts';
import { makeScratchFolder } from '../../util/scratch-folder.ts';

/**
 * Runs `read` with the document written once to a private file (0600 in a 0700 scratch folder of
 * TMPDIR), which every reader of it opens by path: no reader is sent a copy, and none holds the
 * file in memory (PDFium reads it a block at a time). The file is the command's own copy of the
 * bytes it checked, never a path another process may change under it. Removed when the reading
 * ends, and by a stop on a signal.
 */
export async function withDocumentFile<T>(bytes: Uint8Array, read: (path: string) => Promise<T>): Promise<T> {
  const folder = await makeScratchFolder('tariff-pdf-');
  const remove = () => rm(folder, { recursive: true, force: true });
  const unregister = onStop({ what: `the PDF reader's copy ${folder} removed`, undo: remove });
  try {
    const path = join(folder, 'document.pdf');
    await writeFile(path, bytes, { mode: 0o600, flag: 'wx' }).catch((error: unknown) => {
      const fault = machineFault(error);
      throw fault ? machineFaultError({ ...fault, path: fault.path ?? folder }, 'the PDF reader (its scratch folder is in TMPDIR)') : error;
    });
    return await read(path);
  } finally {
    unregister();
    await remove();
  }
}
