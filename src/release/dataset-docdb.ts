import { createRequire } from 'node:module';
import Datastore from 'nedb-promises';
import type { Barcode, Dataset, Product } from '../dataset/model.ts';

const require = createRequire(import.meta.url);

/**
 * The exact version of the NeDB engine (@seald-io/nedb, the engine nedb-promises drives) that
 * writes the `docdb` file: the manifest's `files.docdb.docdbVersion`.
 */
export const DOCDB_ENGINE = '@seald-io/nedb';
export const docdbVersion: string = (require(`${DOCDB_ENGINE}/package.json`) as { version: string }).version;

const productId = (admCode: number) => `product:${String(admCode).padStart(10, '0')}`;
const barcodeId = (barcode: string) => `barcode:${barcode}`;

/**
 * Writes the `docdb` format: one NeDB datafile holding a `meta` document, one document per
 * product and per barcode (field `type`), with stable `_id`s and the indexes declared in the file.
 * NeDB compacts the file in `_id` order, so the bytes depend only on the data.
 */
export async function writeDatasetDocdb(dataset: Dataset, path: string): Promise<void> {
  const store = Datastore.create({ filename: path, autoload: false });
  await store.load();
  await store.ensureIndex({ fieldName: 'type' });
  await store.ensureIndex({ fieldName: 'admCode' });
  await store.ensureIndex({ fieldName: 'barcode', unique: true, sparse: true });
  const meta = { _id: 'meta', type: 'meta', schemaVersion: dataset.schemaVersion, version: dataset.version, tariffDate: dataset.tariffDate, source: dataset.source };
  await store.insert([
    meta,
    ...dataset.products.map((product) => ({ _id: productId(product.admCode), type: 'product', ...product })),
    ...dataset.barcodes.map((barcode) => ({ _id: barcodeId(barcode.barcode), type: 'barcode', ...barcode })),
  ]);
  await (store as unknown as { compactDatafileAsync(): Promise<void> }).compactDatafileAsync();
}

/** Reads the `docdb` format back with NeDB itself into the canonical shape. */
export async function readDatasetDocdb(path: string): Promise<Dataset> {
  const store = Datastore.create({ filename: path, autoload: false });
  await store.load();
  const strip = <T>(doc: Record<string, unknown>): T => {
    const { _id, type, ...rest } = doc;
    return rest as T;
  };
  const meta = (await store.findOne({ _id: 'meta' })) as Record<string, unknown> | null;
  const products = ((await store.find({ type: 'product' }).sort({ admCode: 1 })) as Record<string, unknown>[]).map((doc) => strip<Product>(doc));
  const barcodes = ((await store.find({ type: 'barcode' }).sort({ barcode: 1 })) as Record<string, unknown>[]).map((doc) => strip<Barcode>(doc));
  return {
    schemaVersion: meta?.schemaVersion as Dataset['schemaVersion'],
    version: String(meta?.version ?? ''),
    tariffDate: String(meta?.tariffDate ?? ''),
    source: String(meta?.source ?? ''),
    products,
    barcodes,
  };
}
