import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readdir, readlink, rename, rm, stat, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { Format, Manifest } from '../release/manifest.ts';
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

/** Makes `dataset.<format>` point at `file`: a new link renamed over it, the folder flushed. */
export async function pointTo(dest: string, format: Format, file: string): Promise<void> {
  const temporary = join(dest, `.${installedName(format)}.link-${process.pid}`);
  await rm(temporary, { force: true });
  await symlink(file, temporary);
  await rename(temporary, join(dest, installedName(format)));
  await syncFolder(dest);
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
 * the state no longer names, so a till's folder holds one copy.
 */
export async function removeStale(dest: string, installed: Installed | null): Promise<void> {
  for (const name of await readdir(dest).catch(() => [] as string[])) {
    if (TEMPORARY.test(name) || (COPY.test(name) && name !== installed?.file)) await rm(join(dest, name), { force: true });
  }
}
