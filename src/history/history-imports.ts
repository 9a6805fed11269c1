import { isDeepStrictEqual } from 'node:util';
import * as z from 'zod';
import { oneLine } from '../util/clean-text.ts';
import { productHistorySchema } from './history-file.ts';
import type { PriceHistory, ProductHistory } from './price-history.ts';

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
  /** Products changed since by a release or another import: only the import's own steps were taken out. */
  adjusted: number[];
}

/**
 * Takes an import back out. A product untouched since the import is put back exactly as it was
 * before it (or dropped, if the import added it); one changed since keeps everything but the steps
 * read from this document, so later releases and lists are never lost.
 */
export function removeImport(history: PriceHistory, record: ImportRecord): ImportRemoval {
  const byCode = new Map(history.products.map((entry) => [entry.admCode, entry]));
  let restored = 0;
  const adjusted: number[] = [];
  for (const { admCode, before, after } of record.products) {
    const now = byCode.get(admCode);
    if (!now) continue;
    if (isDeepStrictEqual(now, after)) {
      restored += 1;
      if (before) byCode.set(admCode, before);
      else byCode.delete(admCode);
      continue;
    }
    const steps = now.steps.filter((step) => !(step.release === null && step.source === record.source));
    if (steps.length === now.steps.length) continue;
    adjusted.push(admCode);
    if (steps.length > 0) byCode.set(admCode, { ...now, steps });
    else byCode.delete(admCode);
  }
  return { history: { ...history, products: [...byCode.values()].sort((a, b) => a.admCode - b.admCode) }, restored, adjusted };
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
