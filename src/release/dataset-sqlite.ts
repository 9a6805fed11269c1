import Database from 'better-sqlite3';
import { announcedFields, changeFields } from '../dataset/model.ts';
import type { AnnouncedPrice, Barcode, Change, Dataset, Product } from '../dataset/model.ts';

/** A price's reference price (per conventional kilogram, per 1,000 pieces, …): columns added after the first releases. */
const REFERENCE_COLUMNS = [
  ['referencePriceCents', 'reference_price_cents', 'INTEGER'],
  ['referenceUnit', 'reference_unit', 'TEXT'],
] as const satisfies readonly (readonly [keyof Product & keyof AnnouncedPrice, string, string])[];

/** JSON field ↔ SQL column of the `sqlite` format, in table order (docs/dataset.md). */
const PRODUCT_COLUMNS = [
  ['admCode', 'adm_code', 'INTEGER PRIMARY KEY'],
  ['name', 'name', 'TEXT NOT NULL'],
  ['category', 'category', 'TEXT NOT NULL'],
  ['pack', 'pack', 'TEXT NOT NULL'],
  ['packQuantity', 'pack_quantity', 'REAL'],
  ['packUnit', 'pack_unit', 'TEXT'],
  ['pricePerKgCents', 'price_per_kg_cents', 'INTEGER'],
  ['pricePerPackCents', 'price_per_pack_cents', 'INTEGER NOT NULL'],
  ['effectiveFrom', 'effective_from', 'TEXT NOT NULL'],
  // Added later: last, so that readers taking columns by position keep working.
  ...REFERENCE_COLUMNS,
] as const satisfies readonly (readonly [keyof Product, string, string])[];

const BARCODE_COLUMNS = [
  ['barcode', 'barcode', 'TEXT PRIMARY KEY'],
  ['admCode', 'adm_code', 'INTEGER NOT NULL REFERENCES products (adm_code)'],
  ['kind', 'kind', "TEXT NOT NULL CHECK (kind IN ('pack', 'carton'))"],
  ['units', 'units', 'INTEGER NOT NULL'],
] as const satisfies readonly (readonly [keyof Barcode, string, string])[];

/** A product's columns in a change row: nullable, since an added product has no old side and a removed one no new side. */
const STATE_COLUMNS = PRODUCT_COLUMNS.slice(1).map(([field, column, type]) => [field, column, type.replace(' NOT NULL', '')] as const);
/** The reference price's columns came after the changes table: they follow all the others there too. */
const LATER_STATE_COLUMNS = REFERENCE_COLUMNS.length;
const oldColumn = ([field, column, type]: (typeof STATE_COLUMNS)[number]) =>
  [`old${field[0]!.toUpperCase()}${field.slice(1)}` as keyof Change, `old_${column}`, type] as const;

/** Unprefixed columns hold the product as it is in this release, `old_…` as it was in the compared one. */
const CHANGE_COLUMNS: readonly (readonly [keyof Change, string, string])[] = [
  ['kind', 'kind', 'TEXT NOT NULL'],
  ['admCode', 'adm_code', 'INTEGER NOT NULL'],
  ['barcode', 'barcode', 'TEXT'],
  ['barcodeKind', 'barcode_kind', 'TEXT'],
  ['units', 'units', 'INTEGER'],
  ...STATE_COLUMNS.slice(0, -LATER_STATE_COLUMNS).map(oldColumn),
  ...STATE_COLUMNS.slice(0, -LATER_STATE_COLUMNS),
  ...STATE_COLUMNS.slice(-LATER_STATE_COLUMNS).map(oldColumn),
  ...STATE_COLUMNS.slice(-LATER_STATE_COLUMNS),
];

/** A notice always states the reference price of the price it announces. */
const ANNOUNCED_COLUMNS = [
  ['admCode', 'adm_code', 'INTEGER NOT NULL'],
  ['effectiveFrom', 'effective_from', 'TEXT NOT NULL'],
  ['pricePerPackCents', 'price_per_pack_cents', 'INTEGER NOT NULL'],
  ['pricePerKgCents', 'price_per_kg_cents', 'INTEGER'],
  ...REFERENCE_COLUMNS.map(([field, column, type]) => [field, column, `${type} NOT NULL`] as const),
  ['source', 'source', 'TEXT NOT NULL'],
] satisfies readonly (readonly [keyof AnnouncedPrice, string, string])[];

const META_KEYS = ['schemaVersion', 'version', 'tariffDate', 'source', 'changesSince'] as const;

const columnsSql = (columns: readonly (readonly [string, string, string])[]) =>
  columns.map(([, column, type]) => `${column} ${type}`).join(', ');
const selectSql = (columns: readonly (readonly [string, string, string])[]) =>
  columns.map(([field, column]) => `${column} AS "${field}"`).join(', ');

/**
 * Writes the `sqlite` format to `path` (a new file): tables meta, products, barcodes, changes and announced_prices,
 * indexed on tariff code and barcode, then VACUUMed so the file is compact and its bytes depend only on
 * the data and the SQLite version.
 */
export function writeDatasetSqlite(dataset: Dataset, path: string): void {
  const db = new Database(path);
  try {
    db.pragma('journal_mode = OFF');
    db.pragma('synchronous = OFF');
    db.pragma('page_size = 4096');
    db.pragma(`user_version = ${dataset.schemaVersion}`);
    db.exec(`
      CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
      CREATE TABLE products (${columnsSql(PRODUCT_COLUMNS)});
      CREATE TABLE barcodes (${columnsSql(BARCODE_COLUMNS)}) WITHOUT ROWID;
      CREATE TABLE changes (id INTEGER PRIMARY KEY, ${columnsSql(CHANGE_COLUMNS)});
      CREATE TABLE announced_prices (id INTEGER PRIMARY KEY, ${columnsSql(ANNOUNCED_COLUMNS)});
    `);
    const insertMeta = db.prepare('INSERT INTO meta (key, value) VALUES (?, ?)');
    db.transaction(() => {
      // A first release has no changesSince row: meta holds text only, and absent reads as null.
      for (const key of META_KEYS) if (dataset[key] !== null) insertMeta.run(key, String(dataset[key]));
      insertRows(db, { table: 'products', columns: PRODUCT_COLUMNS }, dataset.products);
      insertRows(db, { table: 'barcodes', columns: BARCODE_COLUMNS }, dataset.barcodes);
      insertRows(db, { table: 'changes', columns: CHANGE_COLUMNS, numbered: true }, dataset.changes);
      insertRows(db, { table: 'announced_prices', columns: ANNOUNCED_COLUMNS, numbered: true }, dataset.announced);
    })();
    // Built once the rows are in, in one sorted pass, rather than grown row by row (a fifth of
    // the time); each in its own statement, as before, so the file's bytes stay those of earlier
    // releases (SQLite counts the changes in the header).
    db.exec('CREATE INDEX barcodes_adm_code ON barcodes (adm_code)');
    db.exec('CREATE INDEX changes_adm_code ON changes (adm_code)');
    db.exec('CREATE INDEX announced_prices_adm_code ON announced_prices (adm_code)');
    db.exec('VACUUM');
  } finally {
    db.close();
  }
}

/** Rows per INSERT statement: a batch's JSON text stays near a megabyte, not the whole table's. */
const ROWS_PER_INSERT = 10_000;

/**
 * Inserts `rows` a batch at a time, each batch one statement that reads its rows from a JSON array
 * of arrays (json_each), rather than binding each row through a prepared statement: one call into
 * the addon per row took a third longer for 100,000 barcodes. Each value keeps the type it is
 * bound with: a JSON integer is INTEGER, another number REAL, a string TEXT, null (or an absent
 * field) NULL. Rows go in array order, so a `numbered` table's `id` counts them from 1 as before.
 */
function insertRows<Row>(
  db: Database.Database,
  into: { table: string; columns: readonly (readonly [keyof Row & string, string, string])[]; numbered?: boolean },
  rows: readonly Row[],
): void {
  const values = into.columns.map((_, at) => `value ->> ${at}`).join(', ');
  const insert = db.prepare(`INSERT INTO ${into.table} SELECT ${into.numbered ? 'NULL, ' : ''}${values} FROM json_each(?) ORDER BY key`);
  for (let from = 0; from < rows.length; from += ROWS_PER_INSERT) {
    const batch = rows.slice(from, from + ROWS_PER_INSERT);
    insert.run(JSON.stringify(batch.map((row) => into.columns.map(([field]) => row[field] ?? null))));
  }
}

/**
 * The tariff codes of a release's `sqlite` file (its bytes, uncompressed), read in place: what a
 * service needs of a release to check submissions, without building every row of it.
 */
export function readAdmCodes(bytes: Buffer): Set<number> {
  const db = new Database(bytes, { readonly: true });
  try {
    return new Set(db.prepare('SELECT adm_code FROM products').pluck().all() as number[]);
  } finally {
    db.close();
  }
}

/** Reads the `sqlite` format back (read-only) into the canonical shape. */
export function readDatasetSqlite(path: string): Dataset {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    const meta = Object.fromEntries(
      (db.prepare('SELECT key, value FROM meta').all() as { key: string; value: string }[]).map((row) => [row.key, row.value]),
    );
    const products = db.prepare(`SELECT ${selectSql(PRODUCT_COLUMNS)} FROM products ORDER BY adm_code`).all() as Product[];
    const barcodes = db.prepare(`SELECT ${selectSql(BARCODE_COLUMNS)} FROM barcodes ORDER BY barcode`).all() as Barcode[];
    // Releases built before changes were added have no such table: they read as a first release.
    const hasTable = (name: string) => db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !== undefined;
    const changes = hasTable('changes')
      ? (db.prepare(`SELECT ${selectSql(CHANGE_COLUMNS)} FROM changes ORDER BY id`).all() as Change[]).map(changeFields)
      : [];
    // Likewise announced prices: none before they were added.
    const announced = hasTable('announced_prices')
      ? (db.prepare(`SELECT ${selectSql(ANNOUNCED_COLUMNS)} FROM announced_prices ORDER BY id`).all() as AnnouncedPrice[]).map(
          announcedFields,
        )
      : [];
    return {
      schemaVersion: Number(meta.schemaVersion) as Dataset['schemaVersion'],
      version: meta.version ?? '',
      tariffDate: meta.tariffDate ?? '',
      source: meta.source ?? '',
      changesSince: meta.changesSince ?? null,
      products,
      barcodes,
      changes,
      announced,
    };
  } finally {
    db.close();
  }
}
