import type { Category, FeedCategory } from './categories.ts';
import type { ReferenceUnit } from './reference-unit.ts';

/** One product as the authority lists it, with where it was found for error messages. */
export interface SourceProduct {
  admCode: number;
  name: string;
  pack: string;
  /** The list's reference price (per kg, per conventional kg, per 1,000 pieces: the list's `referenceUnit`). */
  referencePriceCents: number;
  pricePerPackCents: number;
  where: string;
}

/** One category list of one document: the products of a category in force from a date. */
export interface SourceList {
  source: string;
  feedCategory: FeedCategory;
  category: Category;
  effectiveFrom: string;
  /** What the reference price is per, as the list's header says (`conventional_kg`, `kg`, `1000_pieces`…). */
  referenceUnit: ReferenceUnit;
  products: SourceProduct[];
  where: string;
}

/** One row of a price-change notice: a product's new prices. */
export interface NoticeChange {
  feedCategory: FeedCategory;
  category: Category;
  /** Null where the notice's table has no code column (some cigar tables): matched by name and pack. */
  admCode: number | null;
  name: string;
  pack: string;
  referenceUnit: ReferenceUnit;
  fromReferenceCents: number;
  referencePriceCents: number;
  pricePerPackCents: number;
  where: string;
}

/**
 * A price-change notice: new prices that apply from its effective date on top of the list in force.
 * The authority's previews state no date: it is then taken from the page that links the notice, or
 * given on the command line; a notice without one is reported and never applied.
 */
export interface SourceNotice {
  source: string;
  effectiveFrom: string | null;
  changes: NoticeChange[];
  where: string;
}

/**
 * A document read and deliberately left out of the national tariff: a Campione d'Italia list
 * (another territory, other prices), reported with what it is.
 */
export interface SetAsideDocument {
  source: string;
  kind: 'campione';
  effectiveFrom: string | null;
  detail: string;
}

/** What one source document holds. */
export interface ParsedSource {
  lists: SourceList[];
  notices: SourceNotice[];
  setAside: SetAsideDocument[];
}

/** Raw bytes of one source document and the name it is reported under (path or URL). */
export interface SourceDocument {
  name: string;
  /** The document's bytes; empty once it was parsed as it was read (`parsed` and `digest` then say what it was). */
  bytes: Uint8Array;
  /** What the bytes hold, when a fetch has read them already. */
  parsed?: ParsedSource;
  /** The SHA-256 and size of the bytes, when they were let go once parsed. */
  digest?: { sha256: string; size: number };
  /**
   * The effective date of a notice that does not state it, as the page linking it does ("con
   * decorrenza dal …" in the news item) or as `tariff build --notice-date` gives it.
   */
  noticeDate?: string;
}
