import { isDeepStrictEqual } from 'node:util';
import * as z from 'zod';
import { oneLine } from '../util/clean-text.ts';
import { productHistorySchema } from './history-file.ts';
import { namingOf, stepsOf, type PriceHistory, type PriceSighting, type ProductHistory } from './price-history.ts';

/**
 * What one `tariff history import` of a document changed, kept beside the history so that
 * `tariff history remove` can take it back out: each product it touched, before and after.
 */
export interface ImportRecord {
  /** The document's file name as stored in the steps' `source`: cleaned of control and bidirectional characters. */
  source: string;
  /** The SHA-256 of the document's bytes: the one name that cannot be confused. */
  sha256: string;
  /** The lists it held, by effective date. */
  lists: { effectiveFrom: string; products: number }[];
  importedAt: string;
  products: { admCode: number; before: ProductHistory | null; after: ProductHistory }[];
}

/** A document's file name as the history stores it: one clean line, never empty. */
export function cleanSourceName(name: string): string {
  return oneLine(name) || 'unnamed document';
}

/** The record of an import that turned `before` into `after`: the products it changed. */
export function importRecord(before: PriceHistory, after: PriceHistory, document: Omit<ImportRecord, 'products'>): ImportRecord {
  const previous = new Map(before.products.map((entry) => [entry.admCode, entry]));
  const products = after.products
    .filter((entry) => !isDeepStrictEqual(previous.get(entry.admCode), entry))
    .map((entry) => ({ admCode: entry.admCode, before: previous.get(entry.admCode) ?? null, after: entry }));
  return { ...document, products };
}

/** What taking an import back out does to the history. */
export interface ImportRemoval {
  history: PriceHistory;
  /** Products put back exactly as they were before the import. */
  restored: number;
  /** Products changed since by a release or another import: made again from every other source's sightings. */
  adjusted: number[];
}

/**
 * Takes an import back out: its document's sightings leave every product that has them, and each
 * such product's steps are made again from the sightings left (a product no other source saw
 * goes), so the history is the one that never had the document, whatever came before or after
 * it. A sighting recorded before digests were kept is the document's when it names its file.
 */
export function removeImport(history: PriceHistory, record: ImportRecord): ImportRemoval {
  const fromDocument = (s: PriceSighting) =>
    s.release === null && (s.sha256 === record.sha256 || (s.sha256 === null && s.source === record.source));
  const before = new Map(record.products.map((entry) => [entry.admCode, entry.before]));
  let restored = 0;
  const adjusted: number[] = [];
  const products: ProductHistory[] = [];
  for (const product of history.products) {
    if (!product.sightings.some(fromDocument)) {
      products.push(product);
      continue;
    }
    const sightings = product.sightings.filter((s) => !fromDocument(s));
    const result = sightings.length > 0 ? { ...product, ...namingOf(sightings), sightings, steps: stepsOf(sightings) } : null;
    if (isDeepStrictEqual(result, before.get(product.admCode) ?? null)) restored += 1;
    else adjusted.push(product.admCode);
    if (result) products.push(result);
  }
  return { history: { ...history, products }, restored, adjusted };
}

/** The record's shape as stored in the bucket, its products as the history file has them. */
export const importRecordSchema = z.object({
  source: z.string().min(1),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  lists: z.array(z.object({ effectiveFrom: z.string(), products: z.number().int().nonnegative() })),
  importedAt: z.string(),
  products: z.array(
    z.object({ admCode: z.number().int().positive(), before: productHistorySchema.nullable(), after: productHistorySchema }),
  ),
});
