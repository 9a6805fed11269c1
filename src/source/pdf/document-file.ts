import { readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jsonOrNull } from '../../util/json-or-null.ts';
import { machineFault, machineFaultError } from '../../util/machine-fault.ts';
import { onStop } from '../../util/orderly-stop.ts';
import { holderState, thisProcess, type ProcessIdentity } from '../../util/process-identity.ts';
import { makeScratchFolder } from '../../util/scratch-folder.ts';
import { fileSystemNow } from '../../util/file-clock.ts';

/** The scratch folders of the PDF readers' copies, in TMPDIR: `tariff-pdf-<random>`. */
const PREFIX = 'tariff-pdf-';

/** The file in each that names the command that made it: a folder of a command provably gone is a leftover. */
const HOLDER = 'holder.json';

/** A folder that names no command (an older version's, or one cut before it was named) is a leftover past this. */
const UNNAMED_GRACE_MS = 60 * 60_000;

let swept: Promise<void> | null = null;

/**
 * Runs `read` with the document written once to a private file (0600 in a 0700 scratch folder of
 * TMPDIR), which every reader of it opens by path: no reader is sent a copy, and none holds the
 * file in memory (PDFium reads it a block at a time). The file is the command's own copy of the
 * bytes it checked, never a path another process may change under it. Removed when the reading
 * ends, and by a stop on a signal; the folder names its command (holder.json), so that the copy of
 * a command killed outright (SIGKILL, a power cut) is removed by the next command that reads a PDF.
 */
export async function withDocumentFile<T>(bytes: Uint8Array, read: (path: string) => Promise<T>): Promise<T> {
  swept ??= removeDeadCopies(tmpdir());
  await swept;
  const folder = await makeScratchFolder(PREFIX);
  const remove = () => rm(folder, { recursive: true, force: true });
  const unregister = onStop({ what: `the PDF reader's copy ${folder} removed`, undo: remove });
  try {
    const path = join(folder, 'document.pdf');
    const written = async () => {
      await writeFile(join(folder, HOLDER), JSON.stringify(thisProcess()), { mode: 0o600, flag: 'wx' });
      await writeFile(path, bytes, { mode: 0o600, flag: 'wx' });
    };
    await written().catch((error: unknown) => {
      const fault = machineFault(error);
      throw fault ? machineFaultError({ ...fault, path: fault.path ?? folder }, 'the PDF reader (its scratch folder is in TMPDIR)') : error;
    });
    return await read(path);
  } finally {
    unregister();
    await remove();
  }
}

/**
 * Removes the readers' copies that killed commands left in `base`: folders whose command is provably
 * gone, and folders that name none older than an hour. Another user's folders, and those of
 * commands still running (or on another machine sharing the folder), are left alone. Never fails:
 * what it cannot remove stays for a later command.
 */
export async function removeDeadCopies(base: string): Promise<void> {
  const names = await readdir(base).catch(() => [] as string[]);
  // An unnamed copy's age by the clock of the file system that dated it (util/file-clock.ts).
  const now = (await fileSystemNow(base))?.getTime() ?? null;
  for (const name of names) {
    if (!name.startsWith(PREFIX)) continue;
    const folder = join(base, name);
    const holder = jsonOrNull(await readFile(join(folder, HOLDER), 'utf8').catch(() => '')) as Partial<ProcessIdentity> | null;
    const gone = holder
      ? holderState(holder) === 'gone'
      : await stat(folder).then(
          (info) => now !== null && now - info.mtimeMs > UNNAMED_GRACE_MS,
          () => false,
        );
    if (gone) await rm(folder, { recursive: true, force: true }).catch(() => undefined);
  }
}
