import type { AnnouncedPrice, Barcode, Dataset, Product } from '../../dataset/model.ts';
import type { PriceHistory, ProductHistory } from '../../history/price-history.ts';
import type { Category } from '../../source/categories.ts';
import { checkGtin } from '../../gs1/gtin.ts';
import { foldText } from '../../source/category-names.ts';

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
  /** How the text was taken: a barcode, a tariff code, or words of the name. */
  matchedBy: 'barcode' | 'code' | 'name' | 'all';
}

/** Results on one page of the search. */
export const RESULTS_PER_PAGE = 50;

const BARCODE = /^(\d{8}|\d{12,14})$/;
const CODE = /^\d{1,7}$/;

/** The spelling a barcode is stored under, whichever of its GTIN lengths was typed (a 12-digit UPC, 14 digits with leading zeros). */
const storedBarcode = (text: string) => {
  const gtin = checkGtin(text);
  return gtin.ok ? gtin.canonical : text;
};

/**
 * The catalogue of one release and the price history: every product listed now or ever seen, each
 * findable by words of its name (in any order, accents and case aside), by tariff code and by
 * approved barcode. Built once per release in memory; searching it reads nothing.
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
  private readonly folded: string[];

  constructor(
    dataset: Pick<Dataset, 'version' | 'tariffDate' | 'products' | 'barcodes' | 'announced'> | null,
    history: PriceHistory | null,
  ) {
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
    this.folded = this.entries.map((entry) => ` ${foldText(`${entry.name} ${entry.pack}`)}`);
  }

  get size(): number {
    return this.entries.length;
  }

  entry(admCode: number): CatalogueEntry | null {
    return this.byCode.get(admCode) ?? null;
  }

  /** Products whose name and pack hold every word of the text; a barcode or a tariff code finds its product first. */
  search(query: SearchQuery): SearchResult {
    const text = query.text.trim();
    const inCategory = (entry: CatalogueEntry) => query.category === null || entry.category === query.category;
    let matchedBy: SearchResult['matchedBy'] = 'all';
    let found: CatalogueEntry[];
    const barcode = BARCODE.test(text) ? storedBarcode(text) : null;
    if (barcode !== null && this.byBarcode.has(barcode)) {
      matchedBy = 'barcode';
      found = [this.byBarcode.get(barcode)!].filter(inCategory);
    } else if (CODE.test(text) && this.byCode.has(Number(text))) {
      matchedBy = 'code';
      found = [this.byCode.get(Number(text))!].filter(inCategory);
    } else {
      const words = foldText(text).split(' ').filter(Boolean);
      if (words.length > 0) matchedBy = 'name';
      // A word matches at the start of a word of the name ("tosc" finds TOSCANO, not "ammezzati").
      const needles = words.map((word) => ` ${word}`);
      found = this.entries.filter((entry, i) => inCategory(entry) && needles.every((needle) => this.folded[i]!.includes(needle)));
    }
    const pages = Math.max(1, Math.ceil(found.length / RESULTS_PER_PAGE));
    const from = (query.page - 1) * RESULTS_PER_PAGE;
    return { entries: found.slice(from, from + RESULTS_PER_PAGE), total: found.length, pages, matchedBy };
  }
}
