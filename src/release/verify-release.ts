import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import type { Dataset } from '../dataset/model.ts';
import { docdbVersion } from './dataset-docdb.ts';
import { sha256Hex } from '../util/digests.ts';
import { fileName, FORMATS, type Format, type Manifest } from './manifest.ts';
import { openDatasetFile, readManifest } from './read-release.ts';

export interface VerifyReport {
  ok: boolean;
  version: string | null;
  problems: string[];
  checked: { format: Format; sha256: boolean; size: boolean; opened: boolean; products: number | null; barcodes: number | null }[];
}

type FileCheck = VerifyReport['checked'][number];

/**
 * Checks a release directory against its manifest: size and SHA-256 of every file, each format
 * opened by its own engine, counts and metadata as the manifest says, and the three formats
 * holding the same rows. Collects every problem instead of stopping at the first. The files are
 * checked side by side: one engine's disk writes and syncs overlap another's reading.
 */
export async function verifyRelease(dir: string): Promise<VerifyReport> {
  const { manifest } = await readManifest(dir);
  const files = await Promise.all(FORMATS.map((format) => checkFile(dir, format, manifest)));
  const problems = files.flatMap((file) => file.problems);
  const contents = new Map(files.flatMap((file) => (file.dataset ? [[file.entry.format, file.dataset] as const] : [])));

  if (manifest.files.docdb.docdbVersion !== docdbVersion) {
    problems.push(`dataset.docdb.gz: written by NeDB ${manifest.files.docdb.docdbVersion}, this machine has ${docdbVersion}`);
  }
  const reference = contents.get('json');
  for (const [format, dataset] of contents) {
    if (reference && format !== 'json' && !isDeepStrictEqual(dataset, reference)) {
      problems.push(`${fileName(format)}: its rows differ from ${fileName('json')}${firstDifference(reference, dataset)}`);
    }
  }
  return { ok: problems.length === 0, version: manifest.version, problems, checked: files.map((file) => file.entry) };
}

/** One file against its manifest entry, then opened by its engine: what was checked, what is wrong, what it holds. */
async function checkFile(
  dir: string,
  format: Format,
  manifest: Manifest,
): Promise<{ entry: FileCheck; problems: string[]; dataset?: Dataset }> {
  const entry: FileCheck = { format, sha256: false, size: false, opened: false, products: null, barcodes: null };
  const problems: string[] = [];
  const name = fileName(format);
  const expected = manifest.files[format];
  if (!expected.url.endsWith(`/${name}`)) problems.push(`${name}: manifest url ${expected.url} does not end with /${name}`);
  let bytes: Buffer;
  try {
    bytes = await readFile(join(dir, name));
  } catch (error) {
    problems.push(`${name}: cannot read: ${(error as Error).message}`);
    return { entry, problems };
  }
  entry.size = bytes.length === expected.size;
  if (!entry.size) problems.push(`${name}: size is ${bytes.length} bytes, the manifest says ${expected.size}`);
  const sha = sha256Hex(bytes);
  entry.sha256 = sha === expected.sha256;
  if (!entry.sha256) problems.push(`${name}: SHA-256 is ${sha}, the manifest says ${expected.sha256}`);
  let dataset: Dataset;
  try {
    dataset = await openDatasetFile(format, bytes);
  } catch (error) {
    problems.push(`${name}: cannot be opened as ${format}: ${(error as Error).message.split('\n')[0]}`);
    return { entry, problems };
  }
  entry.opened = true;
  entry.products = dataset.products.length;
  entry.barcodes = dataset.barcodes.length;
  problems.push(...metadataProblems(name, dataset, manifest));
  return { entry, problems, dataset };
}

function metadataProblems(name: string, dataset: Dataset, manifest: Manifest): string[] {
  const problems: string[] = [];
  if (dataset.version !== manifest.version)
    problems.push(`${name}: holds version ${dataset.version}, the manifest says ${manifest.version}`);
  if (dataset.tariffDate !== manifest.tariffDate)
    problems.push(`${name}: holds tariff date ${dataset.tariffDate}, the manifest says ${manifest.tariffDate}`);
  if (dataset.schemaVersion !== manifest.schemaVersion)
    problems.push(`${name}: holds schemaVersion ${dataset.schemaVersion}, the manifest says ${manifest.schemaVersion}`);
  if (dataset.products.length !== manifest.counts.products)
    problems.push(`${name}: holds ${dataset.products.length} products, the manifest says ${manifest.counts.products}`);
  if (dataset.barcodes.length !== manifest.counts.barcodes)
    problems.push(`${name}: holds ${dataset.barcodes.length} barcodes, the manifest says ${manifest.counts.barcodes}`);
  return problems;
}

function firstDifference(a: Dataset, b: Dataset): string {
  for (const key of ['products', 'barcodes', 'changes', 'announced'] as const) {
    const index = a[key].findIndex((row, i) => !isDeepStrictEqual(row, b[key][i]));
    if (index !== -1) return ` (first at ${key}[${index}])`;
  }
  if (a.changesSince !== b.changesSince) return ` (changesSince ${b.changesSince} instead of ${a.changesSince})`;
  return '';
}
