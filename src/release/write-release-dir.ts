import { mkdir, mkdtemp, readdir, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { errors, isTariffError } from '../errors.ts';
import { writeFileDurable } from '../util/durable-write.ts';
import { recoverReleaseDir } from '../util/leftovers.ts';
import { fileName, FORMATS, MANIFEST_FILE, renderManifest } from './manifest.ts';
import type { RenderedRelease } from './render-release.ts';

/** What a release folder may hold: the manifest, the three files, and a published release's provenance. */
const RELEASE_FOLDER_NAMES = new Set([MANIFEST_FILE, ...FORMATS.map(fileName), 'provenance.json']);

/**
 * Refuses to replace a folder that is not a release: `--out .` or `--out <data-dir>` would
 * otherwise delete whatever they hold (the registry, the working tree). An empty folder is fine,
 * and so is a release's `sources/`, the documents it was built from, each named by its SHA-256.
 */
async function refuseForeignFolder(target: string): Promise<void> {
  const names = await readdir(target).catch(() => null);
  const documents = names?.includes('sources') ? await readdir(join(target, 'sources')).catch(() => null) : null;
  const releaseSources = documents !== null && documents.every((name) => /^[0-9a-f]{64}$/.test(name));
  const foreign = (names ?? []).filter((name) => !RELEASE_FOLDER_NAMES.has(name) && !(name === 'sources' && releaseSources));
  if (foreign.length > 0) throw errors.outputNotRelease(target, foreign);
}

/**
 * Puts a built release at `outDir`: everything is written and flushed in a temporary sibling
 * directory, which then replaces `outDir` by two renames (the old one aside, the new one in). A
 * failure leaves `outDir` as it was; a kill between the renames leaves the old release beside it,
 * which recoverReleaseDir (run first, here and by `tariff build`) puts back. Only an empty folder or
 * a release folder is replaced: anything else is refused before a byte is written.
 */
export async function writeReleaseDir(release: Pick<RenderedRelease, 'manifest' | 'files'>, outDir: string): Promise<void> {
  const target = resolve(outDir);
  const parent = dirname(target);
  let staging: string | undefined;
  try {
    await mkdir(parent, { recursive: true });
    await recoverReleaseDir(target);
    await refuseForeignFolder(target);
    staging = await mkdtemp(join(parent, `.${basename(target)}.building-`));
    for (const format of FORMATS) await writeFileDurable(join(staging, fileName(format)), release.files[format]);
    await writeFileDurable(join(staging, MANIFEST_FILE), renderManifest(release.manifest));

    const existing = await stat(target).catch(() => null);
    if (existing && !existing.isDirectory()) throw new Error(`${target} exists and is not a directory`);
    if (existing) {
      const retired = `${staging}.replaced`;
      await rename(target, retired);
      await rename(staging, target);
      await rm(retired, { recursive: true, force: true });
    } else {
      await rename(staging, target);
    }
    staging = undefined;
  } catch (error) {
    if (isTariffError(error)) throw error;
    throw errors.outputFailed(target, (error as Error).message);
  } finally {
    if (staging) await rm(staging, { recursive: true, force: true });
  }
}
