import type { Category, FeedCategory } from './categories.ts';

/** One product as the authority lists it, with where it was found for error messages. */
export interface SourceProduct {
  admCode: number;
  name: string;
  pack: string;
  pricePerKgCents: number;
  pricePerPackCents: number;
  where: string;
}

/** One category list of one document: the products of a category in force from a date. */
export interface SourceList {
  source: string;
  feedCategory: FeedCategory;
  category: Category;
  effectiveFrom: string;
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
  fromPerKgCents: number;
  pricePerKgCents: number;
  pricePerPackCents: number;
  where: string;
}

/** A price-change notice: new prices that apply from its effective date on top of the list in force. */
export interface SourceNotice {
  source: string;
  effectiveFrom: string;
  changes: NoticeChange[];
  where: string;
}

/** What one source document holds. */
export interface ParsedSource {
  lists: SourceList[];
  notices: SourceNotice[];
}
