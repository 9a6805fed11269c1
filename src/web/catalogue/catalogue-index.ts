import type { AnnouncedPrice, Barcode, Dataset, Product } from '../../dataset/model.ts';
import type { PriceHistory, ProductHistory } from '../../history/price-history.ts';
import type { Category } from '../../source/categories.ts';
import { checkGtin } from '../../gs1/gtin.ts';
import { NameSearch } from './name-search.ts';
import { parseTariffCode } from '../../source/tariff-code.ts';

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
  history: ProductHistory | null;
}

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
 * by approved barcode (exact lookups). Built once per release in memory; searching it reads nothing.
 */
export class CatalogueIndex {
  readonly version: string | null;
  readonly tariffDate: string | null;
  readonly announced: AnnouncedPrice[];
  /** Products of the release (the others are withdrawn ones the history knows). */
  readonly listed: number;
  private readonly entries: CatalogueEntry[];
  private readonly byCode: Map<number, CatalogueEntry>;
  private readonly byBarcode: Map<string, CatalogueEntry>;
  private readonly names: NameSearch;

  /** The history could not be read (and none was before): pages say so rather than "no history". */
  readonly historyUnavailable: boolean;

  constructor(
    dataset: Pick<Dataset, 'version' | 'tariffDate' | 'products' | 'barcodes' | 'announced'> | null,
    history: PriceHistory | null,
    { historyUnavailable = false } = {},
  ) {
    this.historyUnavailable = historyUnavailable;
    this.version = dataset?.version ?? null;
    this.tariffDate = dataset?.tariffDate ?? null;
    this.announced = dataset?.announced ?? [];
    this.listed = dataset?.products.length ?? 0;
    this.byCode = new Map();
    const historyByCode = new Map((history?.products ?? []).map((entry) => [entry.admCode, entry]));
    for (const product of dataset?.products ?? []) {
      this.byCode.set(product.admCode, {
        admCode: product.admCode,
        name: product.name,
        category: product.category,
        pack: product.pack,
        product,
        barcodes: [],
        announced: [],
        history: historyByCode.get(product.admCode) ?? null,
      });
    }
    for (const entry of historyByCode.values()) {
      if (this.byCode.has(entry.admCode)) continue;
      const { admCode, name, category, pack } = entry;
      this.byCode.set(admCode, { admCode, name, category, pack, product: null, barcodes: [], announced: [], history: entry });
    }
    this.byBarcode = new Map();
    for (const barcode of dataset?.barcodes ?? []) {
      const entry = this.byCode.get(barcode.admCode);
      if (!entry) continue;
      entry.barcodes.push(barcode);
      this.byBarcode.set(barcode.barcode, entry);
    }
    for (const row of this.announced) this.byCode.get(row.admCode)?.announced.push(row);
    // In the tariff first, then by name: what a shop looks for comes before what was withdrawn.
    this.entries = [...this.byCode.values()].sort(
      (a, b) => Number(a.product === null) - Number(b.product === null) || a.name.localeCompare(b.name, 'it') || a.admCode - b.admCode,
    );
    this.names = new NameSearch(this.entries);
  }

  get size(): number {
    return this.entries.length;
  }

  entry(admCode: number): CatalogueEntry | null {
    return this.byCode.get(admCode) ?? null;
  }

  /**
   * A barcode or a tariff code finds its product alone; other text, the products whose name and
   * pack hold its words, best matches first (name-search.ts), else none and the closest names.
   */
  search(query: SearchQuery): SearchResult {
    const text = query.text.trim();
    const inCategory = (entry: CatalogueEntry) => query.category === null || entry.category === query.category;
    const exact = this.exactMatch(text);
    if (exact) return this.paged(query, [exact.entry].filter(inCategory), exact.matchedBy);
    if (!/[\p{L}\p{N}]/u.test(text)) return this.paged(query, this.entries.filter(inCategory), 'all');
    const matches = this.names.find(text);
    const found = matches.map((match) => this.entries[match.position]!).filter(inCategory);
    const similar = matches.length > 0 && matches[0]!.tier !== 'words';
    const result = this.paged(query, found, similar ? 'similar' : 'name');
    return found.length > 0 ? result : { ...result, suggestions: this.suggestions(text, inCategory) };
  }

  private exactMatch(text: string): { entry: CatalogueEntry; matchedBy: 'barcode' | 'code' } | null {
    const stored = storedBarcode(text);
    const barcode = stored === null ? undefined : this.byBarcode.get(stored);
    if (barcode) return { entry: barcode, matchedBy: 'barcode' };
    const admCode = parseTariffCode(text);
    const code = admCode === null ? undefined : this.byCode.get(admCode);
    return code ? { entry: code, matchedBy: 'code' } : null;
  }

  /** The distinct names of the products closest to the text, in the category searched. */
  private suggestions(text: string, inCategory: (entry: CatalogueEntry) => boolean): string[] {
    const names = new Set<string>();
    for (const position of this.names.closest(text)) {
      const entry = this.entries[position]!;
      if (inCategory(entry)) names.add(entry.name);
      if (names.size === SUGGESTIONS) break;
    }
    return [...names];
  }

  private paged(query: SearchQuery, found: CatalogueEntry[], matchedBy: SearchResult['matchedBy']): SearchResult {
    const pages = Math.max(1, Math.ceil(found.length / RESULTS_PER_PAGE));
    const from = (query.page - 1) * RESULTS_PER_PAGE;
    return { entries: found.slice(from, from + RESULTS_PER_PAGE), total: found.length, pages, matchedBy, suggestions: [] };
  }
}
