import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { lstat, readdir, readlink, rename, rm, stat, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { errors } from '../errors.ts';
import { FORMATS, type Format, type Manifest } from '../release/manifest.ts';
import { syncFolder } from '../util/durable-write.ts';
import type { SyncState } from './sync-state.ts';
import { VERSION_PATTERN } from '../release/release-version.ts';

export type Installed = NonNullable<SyncState['installed']>;

/** The name a till opens: `dataset.<format>`, pointing at the installed copy. */
export const installedName = (format: Format) => `dataset.${format}`;

/**
 * The installed copy itself, named by its version: the state names it, and `dataset.<format>`
 * points at it. A new copy is written beside the old one and the pointer moved, so whenever a sync
 * is cut short the state names a file that exists and holds what the state says.
 */
export const copyName = (format: Format, version: string) => `dataset-${version}.${format}`;

export type CopyCheck = { ok: true; installed: Installed } | { ok: false; problem: string; relink: boolean };

/**
 * Whether the installed copy is still the one installed: `dataset.<format>` points at it, and its
 * size and modification time are as recorded (every run, one stat), else its SHA-256 is (or with
 * `always`). A state from before these were recorded has the copy opened by its engine and checked
 * against the manifest. A copy that passes by its digest or engine has its size and time recorded
 * anew (it was touched, not changed). `relink`: the copy is whole, only the pointer is wrong.
 */
export async function checkInstalledCopy(dest: string, installed: Installed, manifest: Manifest, always: boolean): Promise<CopyCheck> {
  const path = join(dest, installed.file);
  let found: { size: number; mtimeMs: number };
  try {
    found = await stat(path);
  } catch (error) {
    return { ok: false, problem: missingOrUnreadable(error), relink: false };
  }
  const unchanged = installed.fileSize === found.size && installed.fileMtimeMs === found.mtimeMs;
  let digest = installed.fileSha256;
  if (!unchanged || always || digest === undefined) {
    const content = await checkContent(path, installed, manifest);
    if ('problem' in content) return { ok: false, problem: content.problem, relink: false };
    digest = content.digest;
  }
  const pointer = installed.file === installedName(installed.format) ? null : await pointsAt(dest, installed);
  if (pointer) return { ok: false, problem: pointer, relink: true };
  return unchanged && installed.fileSha256 !== undefined
    ? { ok: true, installed }
    : { ok: true, installed: { ...installed, fileSize: found.size, fileMtimeMs: found.mtimeMs, fileSha256: digest } };
}

const missingOrUnreadable = (error: unknown) => {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ENOENT' ? 'the installed copy is missing' : `the installed copy cannot be read (${code ?? (error as Error).message})`;
};

/**
 * The copy's digest when it is what was installed: the one recorded, or, for a state from before
 * digests were recorded, a copy its engine reads as the manifest's release. Else what is wrong.
 */
async function checkContent(path: string, installed: Installed, manifest: Manifest): Promise<{ digest: string } | { problem: string }> {
  let digest: string;
  try {
    digest = await sha256OfFile(path);
  } catch (error) {
    return { problem: missingOrUnreadable(error) };
  }
  if (installed.fileSha256 !== undefined)
    return digest === installed.fileSha256
      ? { digest }
      : { problem: 'the installed copy was changed (its SHA-256 is not the one installed)' };
  // Loaded only here: a sync with nothing new (the usual run at a till) needs no dataset engine.
  const { checkInstallable } = await import('./check-installable.ts');
  const problem = await checkInstallable(installed.format, path, manifest);
  return problem ? { problem: `the installed copy is not the release: ${problem}` } : { digest };
}

/** What is wrong with `dataset.<format>`, which must be a link to the installed copy; null when it is. */
async function pointsAt(dest: string, installed: Installed): Promise<string | null> {
  const name = installedName(installed.format);
  const target = await readlink(join(dest, name)).catch(() => null);
  return target === installed.file ? null : `${name} does not point at the installed copy ${installed.file}`;
}

export type Layout = NonNullable<SyncState['layout']>;

/** How a destination makes links: the file system's, or a test's that refuses them as vfat does. */
export type MakeLink = (target: string, path: string) => Promise<void>;

/** What a file system that cannot hold symbolic links answers (vfat, SMB/CIFS, Windows without the right). */
const NO_LINKS = new Set(['ENOSYS', 'EPERM', 'EOPNOTSUPP', 'ENOTSUP', 'EINVAL']);

/**
 * Makes `dataset.<format>` the installed copy `file`: with the `link` layout a new link renamed
 * over it; where the destination cannot hold links (tried once, when the layout is not known yet),
 * or with the `plain` layout, `file` itself renamed over it. The folder is flushed. Returns the
 * layout used and the copy's name now (`dataset.<format>` in the plain layout).
 */
export async function pointTo(
  dest: string,
  format: Format,
  file: string,
  layout: Layout | null,
  makeLink: MakeLink = symlink,
): Promise<{ layout: Layout; file: string }> {
  const name = installedName(format);
  if (layout !== 'plain') {
    const temporary = join(dest, `.${name}.link-${process.pid}`);
    await rm(temporary, { force: true });
    try {
      await makeLink(file, temporary);
      await rename(temporary, join(dest, name));
      await syncFolder(dest);
      return { layout: 'link', file };
    } catch (error) {
      await rm(temporary, { force: true });
      const code = (error as NodeJS.ErrnoException).code ?? '';
      if (layout === 'link' || !NO_LINKS.has(code)) throw error;
    }
  }
  if (file === name) return { layout: 'plain', file };
  try {
    await rename(join(dest, file), join(dest, name));
  } catch (error) {
    throw errors.syncFailed(
      dest,
      `the folder can hold neither a symbolic link nor a file replaced by renaming (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); install into a folder of a local file system`,
    );
  }
  await syncFolder(dest);
  return { layout: 'plain', file: name };
}

/** The copies `dataset.<format>` names point at: never removed while they do. */
async function linkTargets(dest: string): Promise<Set<string>> {
  const targets = new Set<string>();
  for (const format of FORMATS) {
    const target = await readlink(join(dest, installedName(format))).catch(() => null);
    if (target) targets.add(target);
  }
  return targets;
}

/**
 * With no usable state (moved aside, damaged, another version's): what is installed, found from
 * `dataset.<format>` (its link's copy, or the plain file) and opened by its engine to learn the
 * release it holds, so that nothing installed is taken for nothing. Null when nothing usable is.
 */
export async function recoverInstalled(dest: string, format: Format, now: Date): Promise<Installed | null> {
  for (const candidate of [format, ...FORMATS.filter((other) => other !== format)]) {
    const name = installedName(candidate);
    const found = await lstat(join(dest, name)).catch(() => null);
    if (!found) continue;
    const file = found.isSymbolicLink() ? await readlink(join(dest, name)) : name;
    if (!COPY.test(file) && file !== name) continue;
    const { openInstalled } = await import('./check-installable.ts');
    const dataset = await openInstalled(candidate, join(dest, file));
    if (typeof dataset === 'string') continue;
    // The compressed file's digest is not known from the copy: the manifest's, once the copy checks out against it.
    return { version: dataset.version, format: candidate, file, sha256: '', etag: null, installedAt: now.toISOString() };
  }
  return null;
}

export async function sha256OfFile(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** The temporary files of a sync: a run's downloads and links (named with its pid), and a state being written. */
const TEMPORARY = /^(\.dataset\.(json|sqlite|docdb)(\.gz)?\.(download|link)-\d+|\.sync-state\.json\.[0-9a-f]+\.tmp)$/;
const COPY = new RegExp(`^dataset-${VERSION_PATTERN}\\.(json|sqlite|docdb)$`);

/**
 * Removes, under the sync lock, what an interrupted run left (its temporary files) and the copies
 * neither the state nor any `dataset.<format>` names, so a till's folder holds one copy and never
 * loses the one a program opens.
 */
export async function removeStale(dest: string, installed: Installed | null): Promise<void> {
  // A link to nothing would let a program create an empty database through it (SQLite does): gone.
  for (const format of FORMATS) {
    const name = join(dest, installedName(format));
    if ((await lstat(name).catch(() => null))?.isSymbolicLink() && !(await stat(name).catch(() => null))) await rm(name, { force: true });
  }
  const kept = await linkTargets(dest);
  if (installed) kept.add(installed.file);
  for (const name of await readdir(dest).catch(() => [] as string[])) {
    if (TEMPORARY.test(name) || (COPY.test(name) && !kept.has(name))) await rm(join(dest, name), { force: true });
  }
}
