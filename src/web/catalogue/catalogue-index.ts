import type { AnnouncedPrice } from '../../dataset/model.ts';
import type { PriceHistory } from '../../history/price-history.ts';
import type { Category } from '../../source/categories.ts';
import { checkGtin } from '../../gs1/gtin.ts';
import { catalogueInMemory, type CatalogueDb, type CatalogueEntry, type CatalogueName, type CatalogueRows } from './catalogue-db.ts';
import { NameSearch } from './name-search.ts';
import { parseTariffCode } from '../../source/tariff-code.ts';

export type { CatalogueEntry } from './catalogue-db.ts';

export interface SearchQuery {
  text: string;
  category: Category | null;
  /** From 1. */
  page: number;
}

export interface SearchResult {
  entries: CatalogueEntry[];
  total: number;
  pages: number;
  /**
   * How the text was taken: a barcode, a tariff code, words of the name (as typed, or only
   * `similar` names, none holding the words as typed), or no text (`all`).
   */
  matchedBy: 'barcode' | 'code' | 'name' | 'similar' | 'all';
  /** When nothing matched: the names closest to the text ("Forse cercavi …"), at most SUGGESTIONS. */
  suggestions: string[];
}

/** Results on one page of the search. */
export const RESULTS_PER_PAGE = 50;
/** Names suggested when nothing matched. */
export const SUGGESTIONS = 5;

/**
 * The spelling a barcode is stored under, whichever of its GTIN lengths was typed (a 12-digit
 * UPC, 14 digits with leading zeros); null if the text is not a barcode.
 */
const storedBarcode = (text: string) => {
  const gtin = checkGtin(text);
  return gtin.ok ? gtin.canonical : null;
};

/**
 * The catalogue of one release and the price history: every product listed now or ever seen, each
 * findable by words of its name, forgiving typos and spacing (name-search.ts), by tariff code and
 * by approved barcode (exact lookups). The names are searched in memory; the rest of an entry
 * (its row, barcodes, history) is read from the catalogue's database when a page shows it, so the
 * service holds the names, not the rows (catalogue-db.ts). Searching it changes nothing.
 */
export class CatalogueIndex {
  readonly version: string | null;
  readonly tariffDate: string | null;
  readonly announced: AnnouncedPrice[];
  /** Products of the release (the others are withdrawn ones the history knows). */
  readonly listed: number;
  private readonly names: CatalogueName[];
  private readonly byCode: Map<number, number>;
  private readonly words: NameSearch;
  private readonly db: CatalogueDb;

  /** The history could not be read (and none was before): pages say so rather than "no history". */
  readonly historyUnavailable: boolean;

  constructor(db: CatalogueDb, { historyUnavailable = false } = {}) {
    this.db = db;
    this.historyUnavailable = historyUnavailable;
    ({ version: this.version, tariffDate: this.tariffDate, announced: this.announced, listed: this.listed } = db.facts);
    this.names = db.names;
    this.byCode = new Map(this.names.map((name) => [name.admCode, name.position]));
    this.words = new NameSearch(this.names);
  }

  /** The index of `rows` and `history`, its database in memory: for tests. */
  static of(rows: CatalogueRows | null, history: PriceHistory | null, options: { historyUnavailable?: boolean } = {}): CatalogueIndex {
    return new CatalogueIndex(catalogueInMemory(rows, history), options);
  }

  get size(): number {
    return this.names.length;
  }

  entry(admCode: number): CatalogueEntry | null {
    const position = this.byCode.get(admCode);
    return position === undefined ? null : this.db.entry(position);
  }

  /** Lets go of the database: once no page can still be reading this index. */
  close(): void {
    this.db.close();
  }

  /**
   * A barcode or a tariff code finds its product alone; other text, the products whose name and
   * pack hold its words, best matches first (name-search.ts), else none and the closest names.
   */
  search(query: SearchQuery): SearchResult {
    const text = query.text.trim();
    const inCategory = (name: CatalogueName) => query.category === null || name.category === query.category;
    const exact = this.exactMatch(text);
    if (exact) return this.paged(query, [exact.name].filter(inCategory), exact.matchedBy);
    if (!/[\p{L}\p{N}]/u.test(text)) return this.paged(query, this.names.filter(inCategory), 'all');
    const matches = this.words.find(text);
    const found = matches.map((match) => this.names[match.position]!).filter(inCategory);
    const similar = matches.length > 0 && matches[0]!.tier !== 'words';
    const result = this.paged(query, found, similar ? 'similar' : 'name');
    return found.length > 0 ? result : { ...result, suggestions: this.suggestions(text, inCategory) };
  }

  private exactMatch(text: string): { name: CatalogueName; matchedBy: 'barcode' | 'code' } | null {
    const stored = storedBarcode(text);
    const barcode = stored === null ? null : this.db.barcodePosition(stored);
    if (barcode !== null) return { name: this.names[barcode]!, matchedBy: 'barcode' };
    const admCode = parseTariffCode(text);
    const code = admCode === null ? undefined : this.byCode.get(admCode);
    return code === undefined ? null : { name: this.names[code]!, matchedBy: 'code' };
  }

  /** The distinct names of the products closest to the text, in the category searched. */
  private suggestions(text: string, inCategory: (name: CatalogueName) => boolean): string[] {
    const names = new Set<string>();
    for (const position of this.words.closest(text)) {
      const name = this.names[position]!;
      if (inCategory(name)) names.add(name.name);
      if (names.size === SUGGESTIONS) break;
    }
    return [...names];
  }

  /** One page of what was found, its entries read whole. */
  private paged(query: SearchQuery, found: CatalogueName[], matchedBy: SearchResult['matchedBy']): SearchResult {
    const pages = Math.max(1, Math.ceil(found.length / RESULTS_PER_PAGE));
    const from = (query.page - 1) * RESULTS_PER_PAGE;
    const entries = found.slice(from, from + RESULTS_PER_PAGE).map((name) => this.db.entry(name.position));
    return { entries, total: found.length, pages, matchedBy, suggestions: [] };
  }
}
