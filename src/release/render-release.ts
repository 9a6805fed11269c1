import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Change, Dataset, DatasetContent } from '../dataset/model.ts';
import { releaseChanges } from '../dataset/release-changes.ts';
import { formatWithOffset } from '../util/dates.ts';
import { docdbVersion, writeDatasetDocdb } from './dataset-docdb.ts';
import { renderDatasetJson } from './dataset-json.ts';
import { writeDatasetSqlite } from './dataset-sqlite.ts';
import { gzipDeterministic, gzipDeterministicAsync } from './gzip.ts';
import { sha256Hex } from '../util/digests.ts';
import { buildManifest, FORMATS, type Format, type Manifest, type Provenance } from './manifest.ts';
import { nextVersion } from './next-version.ts';

export interface RenderInput {
  content: DatasetContent;
  baseUrl: string;
  previous: Manifest | null;
  /** The previous release's rows, when they could be read and are the previous manifest's. */
  previousDataset: Dataset | null;
  takenVersions?: string[];
  now: () => Date;
  /** A private scratch directory: the SQLite and NeDB engines write real files. */
  scratchDir: string;
  /** Adds the time of a stage, for the operator and the benchmark. */
  time: <T>(stage: string, work: () => T | Promise<T>) => Promise<T>;
  /** What the release is built from, carried by its manifest. */
  provenance?: Provenance;
  /** The version to give it (a rebuild), instead of the next one after `previous`. */
  version?: string;
}

export interface RenderedRelease {
  manifest: Manifest;
  /** The compressed release files, keyed by format. */
  files: Record<Format, Buffer>;
  /** True when the content equals `previous`: the release is the previous one, byte for byte. */
  unchanged: boolean;
  /** The version the changes were computed against (null: a first release, or the previous could not be read). */
  changesSince: string | null;
  changes: Change[];
}

/**
 * Decides the version, computes the changes since the previous release, and renders the three
 * formats and the manifest. The same content gives the same bytes. Unchanged rows keep the
 * previous release, with the changes it carries: it is the same release exactly when rendering it
 * under the previous version gives the previous release's canonical JSON (uncompressed: a
 * content digest, whatever zlib makes of it), and the docdb engine version matches too because
 * clients open that file with the exact engine named.
 */
export async function renderRelease(input: RenderInput): Promise<RenderedRelease> {
  const { content, previous, previousDataset, time } = input;
  const changes = await time('changes', () => (previousDataset ? releaseChanges(previousDataset, content) : []));
  let unchanged = false;
  if (previous && previous.tariffDate === content.tariffDate && (previousDataset ? changes.length === 0 : true)) {
    const carried = { changesSince: previousDataset?.changesSince ?? null, changes: previousDataset?.changes ?? [] };
    const trial = await time('json', () => renderDatasetJson({ ...content, ...carried, version: previous.version }));
    // The content decides, not the compressed bytes: another zlib (a Node.js upgrade) compresses the
    // same rows differently, and that is no new release. Without the previous rows, only the bytes can say.
    const same = previousDataset
      ? await time('hash', () => sha256Hex(trial) === sha256Hex(renderDatasetJson(previousDataset)))
      : await time('hash', () => sha256Hex(gzipDeterministic(trial)) === previous.files.json.sha256);
    unchanged = same && previous.files.docdb.docdbVersion === docdbVersion;
  }
  const version = input.version ?? nextVersion(content.tariffDate, previous, unchanged, input.takenVersions);
  const dataset: Dataset =
    unchanged && previousDataset
      ? { ...content, version, changesSince: previousDataset.changesSince, changes: previousDataset.changes }
      : { ...content, version, changesSince: previousDataset?.version ?? null, changes };

  const engine = (name: string, write: (path: string) => void | Promise<void>) => renderWithEngine(input.scratchDir, name, write);
  // Each file is compressed on libuv's thread pool as soon as it is rendered, while the main
  // thread renders the next one: the SQLite file first, the slowest to compress.
  const sqlite = gzipDeterministicAsync(await time('sqlite', () => engine('dataset.sqlite', (path) => writeDatasetSqlite(dataset, path))));
  const json = gzipDeterministicAsync(await time('json', () => renderDatasetJson(dataset)));
  const docdb = gzipDeterministicAsync(await time('docdb', () => engine('dataset.docdb', (path) => writeDatasetDocdb(dataset, path))));
  const files: Record<Format, Buffer> = await time('gzip', async () => {
    const [jsonGz, sqliteGz, docdbGz] = await Promise.all([json, sqlite, docdb]);
    return { json: jsonGz, sqlite: sqliteGz, docdb: docdbGz };
  });
  const digests = await time('hash', () =>
    Object.fromEntries(FORMATS.map((format) => [format, { sha256: sha256Hex(files[format]), size: files[format].length }])),
  );
  const manifest = buildManifest({
    version,
    tariffDate: content.tariffDate,
    generatedAt: unchanged && previous ? previous.generatedAt : generatedAt(input.now),
    source: content.source,
    counts: { products: content.products.length, barcodes: content.barcodes.length },
    baseUrl: input.baseUrl,
    digests: digests as Record<Format, { sha256: string; size: number }>,
    docdbVersion,
    provenance: input.provenance,
  });
  return { manifest, files, unchanged, changesSince: dataset.changesSince, changes: dataset.changes };
}

/** Whole seconds, in Italian time: operators read this field. */
function generatedAt(now: () => Date): string {
  return formatWithOffset(new Date(Math.floor(now().getTime() / 1000) * 1000), 'Europe/Rome');
}

async function renderWithEngine(scratchDir: string, name: string, write: (path: string) => void | Promise<void>): Promise<Buffer> {
  const path = join(scratchDir, name);
  await rm(path, { force: true });
  await write(path);
  try {
    return await readFile(path);
  } finally {
    await rm(path, { force: true });
  }
}
