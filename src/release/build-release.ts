import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { assembleDataset } from '../dataset/assemble-dataset.ts';
import type { Barcode, Change, Dataset, DatasetContent } from '../dataset/model.ts';
import { releaseChanges } from '../dataset/release-changes.ts';
import { selectTariff, type TariffInForce } from '../dataset/select-tariff.ts';
import type { NoticeReport } from '../dataset/apply-notices.ts';
import { parseSource } from '../source/parse-source.ts';
import type { ParsedSource } from '../source/source-types.ts';
import { formatWithOffset } from '../util/dates.ts';
import { categoryCounts, checkCategoryShrink, checkShrink } from './check-shrink.ts';
import { docdbVersion, writeDatasetDocdb } from './dataset-docdb.ts';
import { renderDatasetJson } from './dataset-json.ts';
import { writeDatasetSqlite } from './dataset-sqlite.ts';
import { gzipDeterministic, gzipDeterministicAsync, sha256Hex } from './gzip.ts';
import { buildManifest, FORMATS, type Format, type Manifest } from './manifest.ts';
import { nextVersion } from './next-version.ts';

/** Raw bytes of one feed document and the name it is reported under (path or URL). */
export interface SourceDocument {
  name: string;
  bytes: Uint8Array;
  /** What the bytes hold, when a fetch has read them already. */
  parsed?: ParsedSource;
}

export interface BuildOptions {
  sources: SourceDocument[];
  barcodes: Barcode[];
  /** The day whose tariff in force is built (ISO date, Italian calendar). */
  date: string;
  baseUrl: string;
  previous: Manifest | null;
  /**
   * The previous release's content: the changes are computed against it, and the per-category
   * shrink guard counts its categories. Null when there is none or it cannot be read (the release
   * then carries no changes, and only the total guards against shrinking).
   */
  previousDataset?: Dataset | null;
  /** Versions already published (kept in the bucket): a new version number goes past them. */
  takenVersions?: string[];
  allowShrink: boolean;
  maxShrink: number;
  now: () => Date;
  /** A private scratch directory: the SQLite and NeDB engines write real files. */
  scratchDir: string;
}

export interface BuiltRelease {
  manifest: Manifest;
  /** The compressed release files, keyed by format. */
  files: Record<Format, Buffer>;
  /** True when the content equals `previous`: the release is the previous one, byte for byte. */
  unchanged: boolean;
  /** The version the changes were computed against (null: a first release, or the previous could not be read). */
  changesSince: string | null;
  changes: Change[];
  skippedBarcodes: Barcode[];
  pending: TariffInForce['pending'];
  notices: NoticeReport[];
  /** Milliseconds per stage, for the operator and the benchmark. */
  timings: Record<string, number>;
}

/**
 * Computes a release from the sources: parse, select the tariff in force, add barcodes, decide
 * the version, render the three formats and the manifest. Writes nothing outside `scratchDir`;
 * putting the release in place is `writeReleaseDir`'s job.
 */
export async function buildRelease(options: BuildOptions): Promise<BuiltRelease> {
  const timings: Record<string, number> = {};
  const time = async <T>(stage: string, work: () => T | Promise<T>): Promise<T> => {
    const start = performance.now();
    try {
      return await work();
    } finally {
      timings[stage] = (timings[stage] ?? 0) + (performance.now() - start);
    }
  };

  const parsed = await time('parse', async (): Promise<ParsedSource> => {
    const each = await Promise.all(options.sources.map((doc) => doc.parsed ?? parseSource(doc.bytes, doc.name)));
    return { lists: each.flatMap((p) => p.lists), notices: each.flatMap((p) => p.notices) };
  });
  const { content, skippedBarcodes, pending, notices } = await time('normalise', () => {
    const tariff = selectTariff(parsed, options.date);
    return { ...assembleDataset(tariff, options.barcodes), pending: tariff.pending, notices: tariff.notices };
  });
  checkShrink(options.previous?.counts.products ?? null, content.products.length, options.maxShrink, options.allowShrink);
  const previousDataset =
    options.previous && options.previousDataset?.version === options.previous.version ? options.previousDataset : null;
  checkCategoryShrink(
    previousDataset ? categoryCounts(previousDataset.products) : null,
    categoryCounts(content.products),
    options.maxShrink,
    options.allowShrink,
  );
  const changes = await time('changes', () => (previousDataset ? releaseChanges(previousDataset, content) : []));

  const previous = options.previous;
  let unchanged = false;
  if (previous && previous.tariffDate === content.tariffDate) {
    // Unchanged rows keep the previous release, with the changes it carries. It is the same release
    // exactly when rendering it under the previous version reproduces the previous bytes: the JSON
    // file is the canonical rendering, and the docdb engine version must match too because clients
    // open that file with the exact engine named.
    const same = previousDataset ? changes.length === 0 : true;
    const carried = { changesSince: previousDataset?.changesSince ?? null, changes: previousDataset?.changes ?? [] };
    if (same) {
      const trial = await time('json', () => renderDatasetJson({ ...content, ...carried, version: previous.version }));
      const trialSha = await time('hash', () => sha256Hex(gzipDeterministic(trial)));
      unchanged = trialSha === previous.files.json.sha256 && previous.files.docdb.docdbVersion === docdbVersion;
    }
  }
  const version = nextVersion(content.tariffDate, previous, unchanged, options.takenVersions);
  const dataset: Dataset =
    unchanged && previousDataset
      ? { ...content, version, changesSince: previousDataset.changesSince, changes: previousDataset.changes }
      : { ...content, version, changesSince: previousDataset?.version ?? null, changes };

  const raw = {
    json: await time('json', () => renderDatasetJson(dataset)),
    sqlite: await time('sqlite', () => renderWithEngine(options.scratchDir, 'dataset.sqlite', (path) => writeDatasetSqlite(dataset, path))),
    docdb: await time('docdb', () => renderWithEngine(options.scratchDir, 'dataset.docdb', (path) => writeDatasetDocdb(dataset, path))),
  };
  // Compressed on libuv's thread pool: the three files in parallel on both cores.
  const compressed = await time('gzip', () => Promise.all(FORMATS.map((format) => gzipDeterministicAsync(raw[format]))));
  const files = Object.fromEntries(FORMATS.map((format, i) => [format, compressed[i]!])) as Record<Format, Buffer>;
  const digests = await time(
    'hash',
    () =>
      Object.fromEntries(FORMATS.map((format) => [format, { sha256: sha256Hex(files[format]), size: files[format].length }])) as Record<
        Format,
        { sha256: string; size: number }
      >,
  );

  const manifest = buildManifest({
    version,
    tariffDate: content.tariffDate,
    generatedAt: unchanged && previous ? previous.generatedAt : generatedAt(options.now),
    source: content.source,
    counts: countsOf(content),
    baseUrl: options.baseUrl,
    digests,
    docdbVersion,
  });
  return {
    manifest,
    files,
    unchanged,
    changesSince: dataset.changesSince,
    changes: dataset.changes,
    skippedBarcodes,
    pending,
    notices,
    timings,
  };
}

export function countsOf(content: DatasetContent): Manifest['counts'] {
  return { products: content.products.length, barcodes: content.barcodes.length };
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
