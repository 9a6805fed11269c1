import { keepSources } from '../publish/bucket-sources.ts';
import { basename } from 'node:path';
import { assembleDataset } from '../dataset/assemble-dataset.ts';
import type { Dataset } from '../dataset/model.ts';
import { errors } from '../errors.ts';
import { selectTariff } from '../dataset/select-tariff.ts';
import { cleanSourceName, importRecord, removeImport, type ImportRecord } from '../history/history-imports.ts';
import {
  appendReleases,
  digestOfImportKey,
  importKeys,
  readHistoryForUpdate,
  readHistoryManifestForUpdate,
  readImportRecords,
  writeHistory,
  writeImportRecord,
} from '../history/history-store.ts';
import { listObservations, recordObservations } from '../history/price-history.ts';
import { compareVersions } from '../release/release-version.ts';
import { readCurrentManifest, readReleaseRows } from '../publish/bucket-releases.ts';
import { parseSource } from '../source/parse-source.ts';
import type { SourceDocument } from '../source/source-types.ts';
import type { Bucket } from '../storage/bucket.ts';
import { sha256Hex } from '../util/digests.ts';
import type { StepRunner } from './step-runner.ts';

/** What a history update recorded. */
export interface HistoryUpdate {
  /** Releases recorded, oldest first. */
  releases: string[];
  /** Lists read, by file name, with their date and product count. */
  lists: { source: string; effectiveFrom: string; products: number; skipped?: string }[];
  products: number;
  /** The import records this run added to the history (`tariff history import`). */
  imported?: string[];
}

/**
 * The releases the history has not recorded yet, oldest first: from the current one back along
 * `changesSince` to the newest recorded (or as far back as the bucket keeps). A current release
 * older than the one recorded (a rollback) adds nothing: its prices are in already.
 */
async function unrecorded(bucket: Bucket, recorded: string | null): Promise<Dataset[]> {
  const current = await readCurrentManifest(bucket);
  if (!current || (recorded !== null && compareVersions(current.version, recorded) <= 0)) return [];
  const line: Dataset[] = [];
  for (let version: string | null = current.version; version !== null && version !== recorded;) {
    if (recorded !== null && compareVersions(version, recorded) < 0) break;
    const rows = await readReleaseRows(bucket, version);
    if (!rows) break;
    line.push(rows);
    version = rows.changesSince;
  }
  return line.reverse();
}

/**
 * Brings the bucket's price history up to the current release: every published release not yet
 * recorded is, in order. Writes nothing (and returns null) when it is up to date.
 */
export async function catchUpHistory(bucket: Bucket): Promise<HistoryUpdate | null> {
  // The small manifest says which release is recorded: an up-to-date history is not read at all,
  // and one behind is not read whole either (the releases are appended to its log).
  const known = await readHistoryManifestForUpdate(bucket);
  const releases = await unrecorded(bucket, known.manifest?.release ?? null);
  if (releases.length === 0) return null;
  const manifest = await appendReleases(bucket, known, releases);
  return { releases: releases.map((d) => d.version), lists: [], products: manifest.products };
}

/**
 * The step of `tariff release` and `tariff publish` after the switch, on every run (a run that
 * failed here catches up on the next one): in a dry run, said and not done.
 */
export function historyStep(runner: StepRunner, bucket: Bucket): Promise<HistoryUpdate | null> {
  return runner.effect('history', {
    run: async (say) => {
      const update = await catchUpHistory(bucket);
      say(update ? `recorded ${update.releases.join(', ')} (${update.products} products)` : 'up to date');
      return update;
    },
    wouldDo: () => ['record the releases the price history lacks'],
  });
}

/** What `importHistory` is told besides the documents. */
export interface ImportOptions {
  /** The last day whose list may be read: today, or a later day named on purpose (--date). */
  latest: string;
  now: Date;
  /** A document's bytes by digest when the run let them go (the data dir's snapshots), to keep in the bucket's sources/. */
  sources?: (sha256: string) => Promise<Uint8Array | null>;
}

/**
 * Reads archived lists (the authority's older PDFs) into the bucket's price history: each
 * document's lists, normalised as a build would (codes printed twice, text cleaned), each product's
 * price dated from its list. Notices are not read here: their prices reach the history through the
 * releases that applied them. A list dated after `latest` is refused: its prices have not happened.
 * Each document's changes are kept beside the history (`tariff history remove` takes them out); a
 * document imported before is skipped.
 */
export async function importHistory(bucket: Bucket, documents: SourceDocument[], options: ImportOptions): Promise<HistoryUpdate> {
  const read = await readHistoryForUpdate(bucket);
  const included = await importKeys(bucket, read.manifest);
  const imported = new Set(included.map(digestOfImportKey));
  let updated = read.history;
  const lists: HistoryUpdate['lists'] = [];
  const records: ImportRecord[] = [];
  for (const doc of documents) {
    const parsed = doc.parsed ?? (await parseSource(doc.bytes, doc.name));
    const source = cleanSourceName(basename(doc.name));
    const sha256 = doc.digest?.sha256 ?? sha256Hex(doc.bytes);
    const ahead = parsed.lists.find((list) => list.effectiveFrom > options.latest);
    if (ahead) throw errors.historyAhead(doc.name, ahead.effectiveFrom, options.latest);
    if (imported.has(sha256)) {
      for (const list of parsed.lists) lists.push({ source, effectiveFrom: list.effectiveFrom, products: 0, skipped: 'imported before' });
      continue;
    }
    const before = updated;
    const own: ImportRecord['lists'] = [];
    for (const list of parsed.lists) {
      const products = assembleDataset(selectTariff([list], list.effectiveFrom), []).content.products;
      updated = recordObservations(updated, listObservations(products, list.effectiveFrom, source, sha256));
      lists.push({ source, effectiveFrom: list.effectiveFrom, products: products.length });
      own.push({ effectiveFrom: list.effectiveFrom, products: products.length });
    }
    if (own.length > 0) records.push(importRecord(before, updated, { source, sha256, lists: own, importedAt: options.now.toISOString() }));
    imported.add(sha256);
  }
  if (lists.length === 0) throw errors.notPriceList(documents.map((doc) => doc.name).join(', '), 'no price list was found in them');
  if (records.length > 0) {
    // The documents first, kept by content with the releases' (sources/): the history can be rebuilt from the bucket alone.
    // A document parsed as it was read has let its bytes go: then they come from `sources` (the snapshots).
    const bytes = new Map(documents.filter((doc) => doc.bytes.length > 0).map((doc) => [sha256Hex(doc.bytes), doc.bytes]));
    const bytesOf = async (sha256: string) => bytes.get(sha256) ?? (await options.sources?.(sha256)) ?? null;
    await keepSources(
      bucket,
      records.map((record) => ({ sha256: record.sha256, name: record.source })),
      bytesOf,
    );
    // The records next: a history written without its record could not be taken back out.
    const keys: string[] = [];
    for (const record of records) keys.push(await writeImportRecord(bucket, record));
    await writeHistory(bucket, updated, read.head, read.tags, [...included, ...keys]);
    return { releases: [], lists, products: updated.products.length, imported: keys };
  }
  return { releases: [], lists, products: updated.products.length };
}

/** What `tariff history remove` does, or would do. */
export interface HistoryRemoval {
  source: string;
  sha256: string;
  lists: ImportRecord['lists'];
  restored: number;
  adjusted: number[];
  applied: boolean;
}

/**
 * Takes one imported document back out of the history, named by its file name as stored or its
 * SHA-256; with `apply` false, only says what it would do.
 */
export async function removeHistoryImport(bucket: Bucket, name: string, apply: boolean): Promise<HistoryRemoval> {
  const read = await readHistoryForUpdate(bucket);
  const included = await importKeys(bucket, read.manifest);
  const records = await readImportRecords(bucket, included);
  const matching = records.filter((record) => record.sha256 === name.toLowerCase() || record.source === cleanSourceName(name));
  if (matching.length === 0)
    throw errors.importNotFound(
      name,
      records.map((record) => record.source),
    );
  if (matching.length > 1)
    throw errors.importAmbiguous(
      name,
      matching.map((record) => record.sha256),
    );
  const record = matching[0]!;
  const removal = removeImport(read.history, record);
  // The record and its document are then named by nothing: deferred deletion removes them later.
  if (apply)
    await writeHistory(
      bucket,
      removal.history,
      read.head,
      read.tags,
      included.filter((key) => key !== record.key),
    );
  return {
    source: record.source,
    sha256: record.sha256,
    lists: record.lists,
    restored: removal.restored,
    adjusted: removal.adjusted,
    applied: apply,
  };
}
