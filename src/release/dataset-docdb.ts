import { copyFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import type Datastore from 'nedb-promises';
import { announcedFields, changeFields, productFields } from '../dataset/model.ts';
import type { AnnouncedPrice, Barcode, Change, Dataset, Product } from '../dataset/model.ts';
import { makeScratchFolder } from '../util/scratch-folder.ts';

const require = createRequire(import.meta.url);

/**
 * The exact version of the NeDB engine (@seald-io/nedb, the engine nedb-promises drives) that
 * writes the `docdb` file: the manifest's `files.docdb.docdbVersion`.
 */
export const DOCDB_ENGINE = '@seald-io/nedb';
export const docdbVersion: string = (require(`${DOCDB_ENGINE}/package.json`) as { version: string }).version;

const productId = (admCode: number) => `product:${String(admCode).padStart(10, '0')}`;
const changeId = (index: number) => `change:${String(index).padStart(8, '0')}`;
const announcedId = (index: number) => `announced:${String(index).padStart(8, '0')}`;

type BarcodeEntry = Omit<Barcode, 'admCode'>;

/** The unique indexes declared in the file, as `ensureIndex` declares them (clients' queries use them). */
export const DOCDB_INDEXES = [
  { fieldName: 'admCode', unique: true, sparse: true },
  { fieldName: 'barcodes.barcode', unique: true, sparse: true },
] as const;
type ProductDocument = Product & { _id: string; type: 'product'; barcodes: BarcodeEntry[] };

/**
 * Writes the `docdb` format: one NeDB datafile with a `meta` document, one `change` document per
 * change row (`{ _id: 'change:<8-digit index>', type: 'change', change: {…} }`, in row order), one
 * `announced` document per announced price (`{ _id: 'announced:<8-digit index>', type: 'announced',
 * announced: {…} }`, in row order) and
 * one document per product that embeds its barcodes (`barcodes: [{ barcode, kind, units }]`), the
 * way a document database is queried: `findOne({ 'barcodes.barcode': code })` answers a scan with
 * the product.
 * Indexes on `admCode` and `barcodes.barcode` (both unique) are declared in the file.
 *
 * The file is what NeDB writes when the indexes are declared and the documents inserted in one
 * call: the index declarations, then one line per document in the order given. The engine's
 * `model.serialize` is JSON.stringify with a replacer that refuses field names starting with `$`
 * or holding a dot and writes dates as `{ $$date }`; these documents have neither (their fields
 * are the model's), so JSON.stringify itself writes the same line, without calling back for every
 * value (a third less time). The lines are written directly rather than through an in-memory
 * datastore, which would build the indexes (110,000 barcode entries) only to throw them away. The
 * documents come in `_id` order (the order NeDB itself uses when it compacts), so the file is
 * already compact and its bytes depend only on the data. Every release is read back by the engine
 * (`tariff verify`), which also rebuilds and checks the unique indexes; a test checks the bytes
 * against the engine's own insert path.
 */
export async function writeDatasetDocdb(dataset: Dataset, path: string): Promise<void> {
  const lines = DOCDB_INDEXES.map((index) => JSON.stringify({ $$indexCreated: index }));

  const documents = new Map<number, ProductDocument>();
  for (const product of dataset.products)
    documents.set(product.admCode, { _id: productId(product.admCode), type: 'product', ...productFields(product), barcodes: [] });
  for (const barcode of dataset.barcodes)
    documents.get(barcode.admCode)?.barcodes.push({ barcode: barcode.barcode, kind: barcode.kind, units: barcode.units });
  const meta = {
    _id: 'meta',
    type: 'meta',
    schemaVersion: dataset.schemaVersion,
    version: dataset.version,
    tariffDate: dataset.tariffDate,
    source: dataset.source,
    changesSince: dataset.changesSince,
  };
  // Nested, so that a client's product query (`{ admCode }`, `{ name }`) never meets a change, and
  // the unique index on admCode holds.
  const changes = dataset.changes.map((change, i) => ({ _id: changeId(i), type: 'change', change: changeFields(change) }));
  const announced = dataset.announced.map((row, i) => ({ _id: announcedId(i), type: 'announced', announced: announcedFields(row) }));
  for (const document of [...announced, ...changes, meta, ...documents.values()]) lines.push(JSON.stringify(document));
  await writeFile(path, `${lines.join('\n')}\n`, { flag: 'wx' });
}

/**
 * Reads the `docdb` format back with NeDB itself (its parsing, its indexes, its queries) into the
 * canonical shape. NeDB rewrites every datafile it loads (its compaction: each document written
 * again to a temporary file, synced and renamed over the original), so it loads a scratch copy:
 * the file read keeps the bytes its manifest names. The copy costs about 0.1 s of a
 * 10,000-product file (docs/architecture.md).
 */
export async function readDatasetDocdb(path: string): Promise<Dataset> {
  const scratch = await makeScratchFolder('tariff-docdb-');
  try {
    const copy = join(scratch, 'dataset.docdb');
    await copyFile(path, copy);
    // Loaded where a docdb file is read or written, not by every command that may one day.
    const { default: nedb } = await import('nedb-promises');
    const store = nedb.create({ filename: copy, autoload: false });
    await store.load();
    return await datasetOf(store);
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

async function datasetOf(store: Datastore<Record<string, unknown>>): Promise<Dataset> {
  const meta = (await store.findOne({ _id: 'meta' })) as Record<string, unknown> | null;
  const documents = await store.find<ProductDocument>({ type: 'product' }).sort({ admCode: 1 });
  const changes = (await store.find<{ change: Change }>({ type: 'change' }).sort({ _id: 1 })).map((doc) => changeFields(doc.change));
  const announced = (await store.find<{ announced: AnnouncedPrice }>({ type: 'announced' }).sort({ _id: 1 })).map((doc) =>
    announcedFields(doc.announced),
  );
  const products: Product[] = [];
  const barcodes: Barcode[] = [];
  for (const { _id, type, barcodes: entries, ...product } of documents) {
    products.push(product);
    for (const entry of entries) barcodes.push({ barcode: entry.barcode, admCode: product.admCode, kind: entry.kind, units: entry.units });
  }
  barcodes.sort((a, b) => (a.barcode < b.barcode ? -1 : a.barcode > b.barcode ? 1 : 0));
  return {
    schemaVersion: meta?.schemaVersion as Dataset['schemaVersion'],
    version: String(meta?.version ?? ''),
    tariffDate: String(meta?.tariffDate ?? ''),
    source: String(meta?.source ?? ''),
    // Releases built before changes were added lack the field: they read as a first release.
    changesSince: (meta?.changesSince as string | null | undefined) ?? null,
    products,
    barcodes,
    changes,
    announced,
  };
}
