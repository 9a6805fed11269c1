import { readFile, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { errors } from '../errors.ts';
import type { Dataset } from '../dataset/model.ts';
import { readDatasetDocdb } from './dataset-docdb.ts';
import { parseDatasetJson } from './dataset-json.ts';
import { readDatasetSqlite } from './dataset-sqlite.ts';
import { gunzip } from './gzip.ts';
import { fileName, MANIFEST_FILE, manifestSchema, type Format, type Manifest } from './manifest.ts';
import { makeScratchFolder } from '../util/scratch-folder.ts';

export interface ReleaseLocation {
  manifest: Manifest;
  /** The directory holding the manifest and, normally, the release files. */
  dir: string;
}

/** Reads a release manifest from a release directory or a manifest file, checking its shape. */
export async function readManifest(path: string): Promise<ReleaseLocation> {
  const found = await findManifest(path);
  if (found) return found;
  const missingFile = await stat(path).then(
    (info) => info.isDirectory(),
    () => false,
  );
  throw missingFile
    ? errors.releaseUnreadable(join(path, MANIFEST_FILE), `${MANIFEST_FILE} is missing`)
    : errors.releaseUnreadable(path, 'no such file or directory');
}

/**
 * The release manifest at `path` (a release directory or a manifest file), or null when there is
 * none there yet (no such path, or a directory without a manifest: a first build's --previous);
 * a manifest that is there but unreadable or malformed is an error.
 */
export async function findManifest(path: string): Promise<ReleaseLocation | null> {
  const info = await stat(path).catch(() => null);
  if (!info) return null;
  const manifestPath = info.isDirectory() ? join(path, MANIFEST_FILE) : path;
  let text: string;
  try {
    text = await readFile(manifestPath, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw errors.releaseUnreadable(manifestPath, (error as Error).message);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw errors.releaseUnreadable(manifestPath, `not JSON: ${(error as Error).message}`);
  }
  const parsed = manifestSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw errors.releaseUnreadable(manifestPath, `field ${issue.path.join('.') || '(root)'}: ${issue.message}`);
  }
  return { manifest: parsed.data, dir: info.isDirectory() ? path : dirname(manifestPath) };
}

/**
 * Opens one compressed release file with its own engine and returns its content. The SQLite and
 * NeDB engines need a real file, so those are unpacked into a private temporary directory.
 */
export async function openDatasetFile(format: Format, compressed: Uint8Array): Promise<Dataset> {
  const raw = gunzip(compressed);
  if (format === 'json') return parseDatasetJson(raw);
  const scratch = await makeScratchFolder('tariff-open-');
  try {
    const path = join(scratch, `dataset.${format}`);
    await writeFile(path, raw);
    return format === 'sqlite' ? readDatasetSqlite(path) : await readDatasetDocdb(path);
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/** The dataset of a release directory (or manifest file), read from its JSON file. */
export async function readReleaseDataset(path: string): Promise<{ manifest: Manifest; dataset: Dataset }> {
  const { manifest, dir } = await readManifest(path);
  const file = join(dir, fileName('json'));
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (error) {
    throw errors.releaseUnreadable(file, (error as Error).message);
  }
  try {
    return { manifest, dataset: await openDatasetFile('json', bytes) };
  } catch (error) {
    throw errors.releaseUnreadable(file, (error as Error).message);
  }
}
