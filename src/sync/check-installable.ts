import { readFile } from 'node:fs/promises';
import type { Dataset } from '../dataset/model.ts';
import { readDatasetDocdb } from '../release/dataset-docdb.ts';
import { parseDatasetJson } from '../release/dataset-json.ts';
import { readDatasetSqlite } from '../release/dataset-sqlite.ts';
import type { Format, Manifest } from '../release/manifest.ts';

/**
 * Opens an unpacked dataset file with its own engine, as the program that uses it will, and checks
 * that it is the release the manifest describes. Returns what is wrong, or null.
 */
export async function checkInstallable(format: Format, path: string, manifest: Manifest): Promise<string | null> {
  const dataset = await openInstalled(format, path);
  if (typeof dataset === 'string') return dataset;
  if (dataset.version !== manifest.version) return `it holds version ${dataset.version}, the manifest says ${manifest.version}`;
  if (dataset.products.length !== manifest.counts.products)
    return `it holds ${dataset.products.length} products, the manifest says ${manifest.counts.products}`;
  if (dataset.barcodes.length !== manifest.counts.barcodes)
    return `it holds ${dataset.barcodes.length} barcodes, the manifest says ${manifest.counts.barcodes}`;
  return null;
}

/** The dataset an installed file holds, opened by its engine as a till's program would; or what keeps it from opening. */
export async function openInstalled(format: Format, path: string): Promise<Dataset | string> {
  try {
    return format === 'json'
      ? parseDatasetJson(await readFile(path))
      : format === 'sqlite'
        ? readDatasetSqlite(path)
        : await readDatasetDocdb(path);
  } catch (error) {
    return `it does not open as ${format}: ${(error as Error).message.split('\n')[0]}`;
  }
}
