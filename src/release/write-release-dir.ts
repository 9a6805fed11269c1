import { mkdir, mkdtemp, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { errors } from '../errors.ts';
import { writeFileDurable } from '../util/durable-write.ts';
import { recoverReleaseDir } from '../util/leftovers.ts';
import type { BuiltRelease } from './build-release.ts';
import { fileName, FORMATS, MANIFEST_FILE, renderManifest } from './manifest.ts';

/**
 * Puts a built release at `outDir`: everything is written and flushed in a temporary sibling
 * directory, which then replaces `outDir` by two renames (the old one aside, the new one in). A
 * failure leaves `outDir` as it was; a kill between the renames leaves the old release beside it,
 * which recoverReleaseDir (run first, here and by `tariff build`) puts back.
 */
export async function writeReleaseDir(release: BuiltRelease, outDir: string): Promise<void> {
  const target = resolve(outDir);
  const parent = dirname(target);
  let staging: string | undefined;
  try {
    await mkdir(parent, { recursive: true });
    await recoverReleaseDir(target);
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
    throw errors.outputFailed(target, (error as Error).message);
  } finally {
    if (staging) await rm(staging, { recursive: true, force: true });
  }
}
