import { chmod, mkdir, mkdtemp, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { onStop } from '../../util/orderly-stop.ts';
import { jsonOrNull } from '../../util/json-or-null.ts';
import { holderState, thisProcess, type ProcessIdentity } from '../../util/process-identity.ts';
import { fileSystemNow } from '../../util/file-clock.ts';

/**
 * Where backups, checks and restores keep the copies of the registry they cannot avoid making in
 * the clear (VACUUM INTO's file, pg_dump's archive, a backup opened for a restore): a 0700 folder of
 * the data dir, never the bucket, one 0700 subfolder per run naming the process that made it. A run
 * removes its own folder as it ends (a signal included); what a killed run left (SIGKILL, a power
 * cut) is removed by the next backup, check or restore, which says so.
 */
export const SCRATCH_FOLDER = '.registry-scratch';

/** The file in a run's folder that names its process: the folder of a process provably gone is a leftover. */
const HOLDER = 'holder.json';

/** A run's folder being named (cut between making it and naming itself: it holds no copy) is taken as a leftover past this. */
const UNNAMED_GRACE_MS = 60_000;

/**
 * Runs `work` with a private folder of the data dir's scratch folder, removed after it whatever
 * happens, and by a stop on a signal meanwhile; `work` makes its files there (0600 is its own to set).
 */
export async function withBackupScratch<T>(dataDir: string, work: (folder: string) => Promise<T>): Promise<T> {
  const root = join(dataDir, SCRATCH_FOLDER);
  await mkdir(root, { recursive: true, mode: 0o700 });
  // A folder made by an older version, or by hand, is made private before anything goes in.
  await chmod(root, 0o700);
  // Named before it is in use: made as `.run-*`, its holder written, then renamed `run-*`; so every
  // `run-*` names its process, and a `.run-*` never held a copy.
  const making = await mkdtemp(join(root, '.run-'));
  const folder = join(root, basename(making).slice(1));
  const done = onStop({
    what: `${folder} removed`,
    undo: () => Promise.all([making, folder].map((path) => rm(path, { recursive: true, force: true }))).then(() => {}),
  });
  try {
    await writeFile(join(making, HOLDER), JSON.stringify(thisProcess()), { mode: 0o600 });
    await rename(making, folder);
    return await work(folder);
  } finally {
    await rm(making, { recursive: true, force: true });
    await rm(folder, { recursive: true, force: true });
    done();
  }
}

/**
 * Removes what killed backups, checks and restores left: their run folders whose process is gone,
 * the scratch files of versions before this folder (`.registry-backup.*.tmp`, `.registry-restore.*.tmp`
 * in the data dir) and a restore's unpacked copy beside a SQLite registry (`.<file>.*.tmp`, with
 * its journal). Called under the backup lock, which every backup and restore holds: then no run of
 * theirs is under way (a `--check` beside it keeps its own folder, its process alive). Returns the
 * paths removed, for the run to say.
 */
export async function removeDeadScratch(dataDir: string, { registryFile }: { registryFile?: string }): Promise<string[]> {
  const removed: string[] = [];
  const root = join(dataDir, SCRATCH_FOLDER);
  // An unnamed folder's age by the clock of the file system that dated it (util/file-clock.ts).
  const now = await fileSystemNow(root);
  for (const name of await readdir(root).catch(() => [] as string[])) {
    const folder = join(root, name);
    if (!(await runGone(folder, now))) continue;
    await rm(folder, { recursive: true, force: true });
    removed.push(folder);
  }
  const besides: { dir: string; pattern: RegExp }[] = [
    { dir: dataDir, pattern: /^\.registry-(backup|restore)\..+\.tmp(-journal|-wal|-shm)?$/ },
  ];
  if (registryFile) {
    const escaped = basename(registryFile).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    besides.push({ dir: dirname(registryFile), pattern: new RegExp(`^\\.${escaped}\\..+\\.tmp(-journal|-wal|-shm)?$`) });
  }
  for (const { dir, pattern } of besides) {
    for (const name of await readdir(dir).catch(() => [] as string[])) {
      if (!pattern.test(name)) continue;
      await rm(join(dir, name), { recursive: true, force: true });
      removed.push(join(dir, name));
    }
  }
  return removed;
}

/**
 * Whether a run's folder is a leftover: a `run-*` whose process is provably gone (or whose holder
 * is unreadable: damaged, it names no one), a `.run-*` (never used) older than a minute.
 */
async function runGone(folder: string, now: Date | null): Promise<boolean> {
  if (!basename(folder).startsWith('.')) {
    const holder = jsonOrNull(await readFile(join(folder, HOLDER), 'utf8').catch(() => '')) as Partial<ProcessIdentity> | null;
    return !holder || holderState(holder) === 'gone';
  }
  if (!now) return false;
  const made = await stat(folder).then(
    (info) => info.mtimeMs,
    () => now.getTime(),
  );
  return now.getTime() - made > UNNAMED_GRACE_MS;
}
