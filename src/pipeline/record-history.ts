import { basename } from 'node:path';
import { assembleDataset } from '../dataset/assemble-dataset.ts';
import type { Dataset } from '../dataset/model.ts';
import { errors } from '../errors.ts';
import { selectTariff } from '../dataset/select-tariff.ts';
import { readHistory, readHistoryManifest, writeHistory } from '../history/history-store.ts';
import { listObservations, recordObservations, recordRelease, type PriceHistory } from '../history/price-history.ts';
import { compareVersions } from '../publish/bucket-layout.ts';
import { readCurrentManifest, readReleaseRows } from '../publish/bucket-releases.ts';
import { parseSource } from '../source/parse-source.ts';
import type { SourceDocument } from '../source/source-types.ts';
import type { Bucket } from '../storage/bucket.ts';
import type { StepRunner } from './step-runner.ts';

/** What a history update recorded. */
export interface HistoryUpdate {
  /** Releases recorded, oldest first. */
  releases: string[];
  /** Lists read, by file name, with their date and product count. */
  lists: { source: string; effectiveFrom: string; products: number }[];
  products: number;
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
  // The small manifest says which release is recorded: an up-to-date history is not read whole.
  const manifest = await readHistoryManifest(bucket);
  const releases = await unrecorded(bucket, manifest?.release ?? null);
  if (releases.length === 0) return null;
  const { history } = await readHistory(bucket, manifest);
  const updated = releases.reduce<PriceHistory>((sum, dataset) => recordRelease(sum, dataset), history);
  await writeHistory(bucket, updated);
  return { releases: releases.map((d) => d.version), lists: [], products: updated.products.length };
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

/**
 * Reads archived lists (the authority's older PDFs) into the bucket's price history: each
 * document's lists, normalised as a build would (codes printed twice, text cleaned), each product's
 * price dated from its list. Notices are not read here: their prices reach the history through the
 * releases that applied them.
 */
export async function importHistory(bucket: Bucket, documents: SourceDocument[]): Promise<HistoryUpdate> {
  const { history } = await readHistory(bucket);
  let updated = history;
  const lists: HistoryUpdate['lists'] = [];
  for (const doc of documents) {
    const parsed = await parseSource(doc.bytes, doc.name);
    for (const list of parsed.lists) {
      const products = assembleDataset(selectTariff([list], list.effectiveFrom), []).content.products;
      const source = basename(doc.name);
      updated = recordObservations(updated, listObservations(products, list.effectiveFrom, source));
      lists.push({ source, effectiveFrom: list.effectiveFrom, products: products.length });
    }
  }
  if (lists.length === 0) throw errors.notPriceList(documents.map((doc) => doc.name).join(', '), 'no price list was found in them');
  await writeHistory(bucket, updated);
  return { releases: [], lists, products: updated.products.length };
}
