import Database from 'better-sqlite3';
import type { AnnouncedPrice, Barcode, Dataset, Product } from '../../dataset/model.ts';
import type { PriceHistory, ProductHistory } from '../../history/price-history.ts';
import type { Category } from '../../source/categories.ts';

/** What of a product's history its page shows: the steps, and when it was withdrawn (the sightings stay in the bucket's file). */
export type CatalogueHistory = Pick<ProductHistory, 'steps' | 'withdrawn'>;

/** One product as the public catalogue shows it: in the tariff now, or withdrawn and known to the history. */
export interface CatalogueEntry {
  admCode: number;
  name: string;
  category: Category;
  pack: string;
  /** The product as the current release lists it; null once withdrawn. */
  product: Product | null;
  barcodes: Barcode[];
  /** Prices announced for coming days, soonest first. */
  announced: AnnouncedPrice[];
  history: CatalogueHistory | null;
}

/** What a search needs of every entry, held in memory: the rest of an entry is read when a page shows it. */
export interface CatalogueName {
  /** Its place in the catalogue's order (in the tariff first, then by name). */
  position: number;
  admCode: number;
  name: string;
  category: Category;
  pack: string;
}

/** The release's own facts, small, held in memory with the names. */
export interface CatalogueFacts {
  version: string | null;
  tariffDate: string | null;
  announced: AnnouncedPrice[];
  /** Products of the release (the others are withdrawn ones the history knows). */
  listed: number;
}

export type CatalogueRows = Pick<Dataset, 'version' | 'tariffDate' | 'products' | 'barcodes' | 'announced'>;

const SCHEMA = `
  CREATE TABLE facts (id INTEGER PRIMARY KEY CHECK (id = 1), facts TEXT NOT NULL);
  CREATE TABLE entries (
    position INTEGER PRIMARY KEY, adm_code INTEGER NOT NULL UNIQUE, name TEXT NOT NULL, category TEXT NOT NULL,
    pack TEXT NOT NULL, entry TEXT NOT NULL);
  CREATE TABLE barcodes (barcode TEXT PRIMARY KEY, position INTEGER NOT NULL) WITHOUT ROWID;
`;

/**
 * Writes the catalogue of one release and the price history into an empty SQLite database: every
 * product listed now or ever seen, in the order searches list them (in the tariff first, then by
 * name), each with what its page shows, and the approved barcodes. The heavy work of a catalogue
 * (reading the release's rows and the whole history) ends here; the service then holds only the
 * names (CatalogueDb), so its memory does not grow with the rows it once read.
 */
export function writeCatalogue(db: Database.Database, rows: CatalogueRows | null, history: PriceHistory | null): void {
  const byCode = new Map<number, CatalogueEntry>();
  const historyByCode = new Map((history?.products ?? []).map((entry) => [entry.admCode, entry]));
  const shown = (entry: ProductHistory | undefined): CatalogueHistory | null =>
    entry ? { steps: entry.steps, withdrawn: entry.withdrawn } : null;
  for (const product of rows?.products ?? []) {
    const { admCode, name, category, pack } = product;
    byCode.set(admCode, {
      admCode,
      name,
      category,
      pack,
      product,
      barcodes: [],
      announced: [],
      history: shown(historyByCode.get(admCode)),
    });
  }
  for (const entry of historyByCode.values()) {
    if (byCode.has(entry.admCode)) continue;
    const { admCode, name, category, pack } = entry;
    byCode.set(admCode, { admCode, name, category, pack, product: null, barcodes: [], announced: [], history: shown(entry) });
  }
  const barcodes = (rows?.barcodes ?? []).filter((barcode) => byCode.has(barcode.admCode));
  for (const barcode of barcodes) byCode.get(barcode.admCode)!.barcodes.push(barcode);
  for (const row of rows?.announced ?? []) byCode.get(row.admCode)?.announced.push(row);
  // In the tariff first, then by name: what a shop looks for comes before what was withdrawn.
  const entries = [...byCode.values()].sort(
    (a, b) => Number(a.product === null) - Number(b.product === null) || a.name.localeCompare(b.name, 'it') || a.admCode - b.admCode,
  );
  const facts: CatalogueFacts = {
    version: rows?.version ?? null,
    tariffDate: rows?.tariffDate ?? null,
    announced: rows?.announced ?? [],
    listed: rows?.products.length ?? 0,
  };
  db.exec(SCHEMA);
  const insertEntry = db.prepare('INSERT INTO entries (position, adm_code, name, category, pack, entry) VALUES (?, ?, ?, ?, ?, ?)');
  const insertBarcode = db.prepare('INSERT INTO barcodes (barcode, position) VALUES (?, ?)');
  db.transaction(() => {
    db.prepare('INSERT INTO facts (id, facts) VALUES (1, ?)').run(JSON.stringify(facts));
    const positions = new Map<number, number>();
    entries.forEach((entry, position) => {
      positions.set(entry.admCode, position);
      insertEntry.run(position, entry.admCode, entry.name, entry.category, entry.pack, JSON.stringify(entry));
    });
    for (const barcode of barcodes) insertBarcode.run(barcode.barcode, positions.get(barcode.admCode)!);
  })();
}

/**
 * A catalogue written by writeCatalogue, read: the names and the release's facts once, an entry
 * or a barcode when asked. Read-only; its file may already be unlinked (the service unlinks it
 * once open, so nothing is left behind by a process that ends).
 */
export class CatalogueDb {
  readonly facts: CatalogueFacts;
  readonly names: CatalogueName[];
  private readonly db: Database.Database;
  private readonly entryAt: Database.Statement<[number], { entry: string }>;
  private readonly barcodeAt: Database.Statement<[string], { position: number }>;

  /** `source`: a file's path, or a database that was just written (an in-memory one, for tests). */
  constructor(source: string | Database.Database) {
    this.db = typeof source === 'string' ? new Database(source, { readonly: true, fileMustExist: true }) : source;
    this.facts = JSON.parse((this.db.prepare('SELECT facts FROM facts WHERE id = 1').get() as { facts: string }).facts) as CatalogueFacts;
    this.names = this.db
      .prepare('SELECT position, adm_code AS admCode, name, category, pack FROM entries ORDER BY position')
      .all() as CatalogueName[];
    this.entryAt = this.db.prepare('SELECT entry FROM entries WHERE position = ?');
    this.barcodeAt = this.db.prepare('SELECT position FROM barcodes WHERE barcode = ?');
  }

  /** The whole entry at a position of `names`. */
  entry(position: number): CatalogueEntry {
    const row = this.entryAt.get(position);
    if (!row) throw new Error(`the catalogue has no entry ${position}`);
    return JSON.parse(row.entry) as CatalogueEntry;
  }

  /** The position of the entry an approved barcode (in its stored spelling) belongs to. */
  barcodePosition(barcode: string): number | null {
    return this.barcodeAt.get(barcode)?.position ?? null;
  }

  close(): void {
    this.db.close();
  }
}

/** The catalogue of `rows` and `history` in memory: for tests, and wherever no file is wanted. */
export function catalogueInMemory(rows: CatalogueRows | null, history: PriceHistory | null): CatalogueDb {
  const db = new Database(':memory:');
  writeCatalogue(db, rows, history);
  return new CatalogueDb(db);
}
