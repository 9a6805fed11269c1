import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Settings } from '../config/settings.ts';
import type { Dataset } from '../dataset/model.ts';
import { errors } from '../errors.ts';
import { readSources } from '../fetch/read-sources.ts';
import { SnapshotStore } from '../fetch/snapshot-store.ts';
import { RELEASES_PREFIX } from '../publish/bucket-layout.ts';
import { readSource, SOURCES_PREFIX } from '../publish/bucket-sources.ts';
import { readReleaseManifest } from '../publish/bucket-releases.ts';
import { readPublishedRows } from '../publish/read-published-rows.ts';
import { fileName, FORMATS, MANIFEST_FILE, sameDigest, type Manifest, type Provenance } from '../release/manifest.ts';
import { readManifest, readReleaseDataset } from '../release/read-release.ts';
import type { SourceDocument } from '../source/source-types.ts';
import type { Bucket } from '../storage/bucket.ts';
import { sha256Hex } from '../util/digests.ts';
import { isAddress } from '../source/document-name.ts';
import { buildRelease } from './build-release.ts';
import { makeScratchFolder } from '../util/scratch-folder.ts';
import { FOLDER_SOURCES, folderSourceBytes } from './folder-sources.ts';

export interface RebuildReport {
  version: string;
  matches: boolean;
  /** Where each document came from: "the snapshots" or its address. */
  documents: { url: string; from: string; sha256: string; intact: boolean }[];
  /** What differs: documents whose bytes are not the provenance's, release files whose bytes are not the manifest's. */
  differences: string[];
}

type ProvenanceDocument = Provenance['documents'][number];

/**
 * A document's bytes: from the snapshots kept under the data dir when they are there, else from
 * the bucket's sources/ (kept with the releases: a fresh machine with only the bucket), else
 * fetched again from its address.
 */
async function documentBytes(
  doc: ProvenanceDocument,
  snapshots: SnapshotStore,
  bucket: Bucket,
  settings: Settings,
  folderSources: string | null,
): Promise<{ bytes: Buffer; from: string }> {
  // A release folder's own documents first: what it was built from, whatever the authority serves now.
  const carried = folderSources ? await folderSourceBytes(folderSources)(doc.sha256) : null;
  if (carried) return { bytes: Buffer.from(carried), from: `${folderSources}/` };
  const kept = await snapshots.read(doc.sha256).catch(() => null);
  if (kept) return { bytes: kept, from: 'the snapshots' };
  const stored = await readSource(bucket, doc.sha256);
  if (stored) return { bytes: stored, from: `${bucket.description}${SOURCES_PREFIX}` };
  if (!isAddress(doc.url))
    throw errors.releaseUnreadable(
      doc.url,
      `read from a file by the builder, and no document with SHA-256 ${doc.sha256} is in ${snapshots.dir} or in ${bucket.description}${SOURCES_PREFIX}: put the file there (named by its SHA-256) or run the rebuild where the release was built`,
    );
  const [fetched] = await readSources([doc.url], settings);
  return { bytes: Buffer.from(fetched!.bytes), from: doc.url };
}

/** The rows of a kept version of the bucket, or an error naming it: a rebuild needs them. */
async function keptRows(bucket: Bucket, version: string, why: string): Promise<{ manifest: Manifest; dataset: Dataset }> {
  const manifest = await readReleaseManifest(bucket, version);
  const dataset = manifest ? await readPublishedRows(bucket, manifest, () => {}) : null;
  if (!manifest || !dataset)
    throw errors.releaseUnreadable(`${bucket.description}${RELEASES_PREFIX}${version}/`, `${why}, and the bucket no longer keeps it whole`);
  return { manifest, dataset };
}

/** The manifest's address for its files, as the build was given it (the URL without the file name). */
const baseUrlOf = (manifest: Manifest) => manifest.files.json.url.slice(0, -`/${fileName('json')}`.length);

/** The release to rebuild: a version the bucket keeps, or a release folder (a CI candidate) with the documents it carries. */
export type RebuildSubject = { version: string } | { folder: string };

/** The subject's manifest and rows, where its manifest is, and the folder of documents it carries (a folder's `sources/`). */
async function subjectRows(bucket: Bucket, subject: RebuildSubject) {
  if ('version' in subject) {
    const kept = await keptRows(bucket, subject.version, `${subject.version} is the release to rebuild`);
    return { ...kept, where: `${bucket.description}releases/${subject.version}/manifest.json`, folderSources: null };
  }
  const { dir } = await readManifest(subject.folder);
  const { manifest, dataset } = await readReleaseDataset(subject.folder);
  return { manifest, dataset, where: join(dir, MANIFEST_FILE), folderSources: join(dir, FOLDER_SOURCES) };
}

/**
 * Builds a release again from what its provenance names, and says whether the result is byte for
 * byte what its manifest names. The inputs: the authority's documents (from a folder's own
 * `sources/`, the snapshots, the bucket's sources/, else fetched again), the day, the release's own
 * barcodes, and, from the bucket, the release its changes were computed against; the clock is the
 * manifest's `generatedAt`.
 */
export async function rebuildRelease(
  bucket: Bucket,
  subject: RebuildSubject,
  options: { settings: Settings; dataDir: string },
): Promise<RebuildReport> {
  const { manifest, dataset, where, folderSources } = await subjectRows(bucket, subject);
  const version = manifest.version;
  const provenance = manifest.provenance;
  if (!provenance) throw errors.releaseUnreadable(where, 'the manifest names no provenance (built before releases carried one)');
  const previous = dataset.changesSince
    ? await keptRows(bucket, dataset.changesSince, `${version}'s changes are computed against ${dataset.changesSince}`)
    : null;

  const snapshots = new SnapshotStore(options.dataDir, { readOnly: true });
  const differences: string[] = [];
  const documents: RebuildReport['documents'] = [];
  const sources: SourceDocument[] = [];
  for (const doc of provenance.documents) {
    const { bytes, from } = await documentBytes(doc, snapshots, bucket, options.settings, folderSources);
    const sha256 = sha256Hex(bytes);
    const intact = sameDigest({ size: bytes.length, sha256 }, doc);
    if (!intact)
      differences.push(
        `${doc.url} (from ${from}): ${bytes.length} bytes with SHA-256 ${sha256}, the provenance says ${doc.size} bytes with ${doc.sha256}`,
      );
    documents.push({ url: doc.url, from, sha256, intact });
    sources.push({ name: doc.url, bytes, ...(doc.pageDate ? { noticeDate: doc.pageDate } : {}) });
  }

  const scratchDir = await makeScratchFolder('tariff-rebuild-');
  try {
    const built = await buildRelease({
      sources,
      barcodes: dataset.barcodes,
      date: provenance.date,
      baseUrl: baseUrlOf(manifest),
      previous: previous?.manifest ?? null,
      previousDataset: previous?.dataset ?? null,
      allowShrink: true,
      maxShrinkPercent: 100,
      now: () => new Date(manifest.generatedAt),
      scratchDir,
      version,
    });
    for (const format of FORMATS)
      if (!sameDigest(built.manifest.files[format], manifest.files[format]))
        differences.push(
          `${fileName(format)}: the rebuild gives ${built.manifest.files[format].size} bytes with SHA-256 ${built.manifest.files[format].sha256}, ${where} says ${manifest.files[format].size} bytes with ${manifest.files[format].sha256}`,
        );
  } catch (error) {
    differences.push(`the documents do not build: ${(error as Error).message}`);
  } finally {
    await rm(scratchDir, { recursive: true, force: true });
  }
  return { version, matches: differences.length === 0, documents, differences };
}
