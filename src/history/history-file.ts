import * as z from 'zod';
import { DATASET_CATEGORIES } from '../source/categories.ts';
import {
  HISTORY_SCHEMA_VERSION,
  sightingsOfSteps,
  type PriceHistory,
  type PriceSighting,
  type PriceStep,
  type ProductHistory,
} from './price-history.ts';
import { releaseVersionSchema } from '../release/release-version.ts';

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** What a step and a sighting both say: a price from a day, and who carried it. */
const priced = {
  from: z.string().regex(DATE),
  pricePerPackCents: z.number().int().positive(),
  referencePriceCents: z.number().int().positive().nullable(),
  referenceUnit: z.string().nullable(),
  release: releaseVersionSchema.nullable(),
  source: z.string().min(1),
};

const stepSchema = z.strictObject({ ...priced, lastSeen: z.string().regex(DATE) });

const sightingSchema = z.strictObject({
  ...priced,
  seen: z.string().regex(DATE),
  sha256: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .nullable(),
  name: z.string().min(1),
  category: z.enum(DATASET_CATEGORIES as [string, ...string[]]),
  pack: z.string(),
});

/** A product's entry in the history file; one of schema 1 (no sightings) gets those its steps imply. */
export const productHistorySchema = z
  .strictObject({
    admCode: z.number().int().positive(),
    name: z.string().min(1),
    category: z.enum(DATASET_CATEGORIES as [string, ...string[]]),
    pack: z.string(),
    steps: z.array(stepSchema).min(1),
    sightings: z.array(sightingSchema).min(1).optional(),
    withdrawn: z.strictObject({ from: z.string().regex(DATE).nullable(), release: releaseVersionSchema }).nullable(),
  })
  .transform((product) => ({
    ...product,
    sightings:
      (product.sightings as PriceSighting[] | undefined) ??
      sightingsOfSteps(product.steps as PriceStep[], product as Pick<ProductHistory, 'name' | 'category' | 'pack'>),
  }));

const historySchema = z.strictObject({
  schemaVersion: z.union([z.literal(1), z.literal(HISTORY_SCHEMA_VERSION)]).transform(() => HISTORY_SCHEMA_VERSION),
  release: releaseVersionSchema.nullable(),
  products: z.array(productHistorySchema),
});

const stepFields = (s: PriceStep): PriceStep => ({
  from: s.from,
  lastSeen: s.lastSeen,
  pricePerPackCents: s.pricePerPackCents,
  referencePriceCents: s.referencePriceCents,
  referenceUnit: s.referenceUnit,
  release: s.release,
  source: s.source,
});

const productFields = (p: ProductHistory): ProductHistory => ({
  admCode: p.admCode,
  name: p.name,
  category: p.category,
  pack: p.pack,
  steps: p.steps.map(stepFields),
  sightings: p.sightings.map((s) => ({
    from: s.from,
    seen: s.seen,
    pricePerPackCents: s.pricePerPackCents,
    referencePriceCents: s.referencePriceCents,
    referenceUnit: s.referenceUnit,
    release: s.release,
    source: s.source,
    sha256: s.sha256,
    name: s.name,
    category: s.category,
    pack: s.pack,
  })),
  withdrawn: p.withdrawn && { from: p.withdrawn.from, release: p.withdrawn.release },
});

/** The history as JSON, one product per line, fields in a fixed order: the same history gives the same bytes. */
export function renderHistory(history: PriceHistory): Buffer {
  const rows = history.products.map((p) => JSON.stringify(productFields(p))).join(',\n');
  const head = JSON.stringify({ schemaVersion: history.schemaVersion, release: history.release });
  return Buffer.from(`${head.slice(0, -1)},"products":[${rows ? `\n${rows}\n` : ''}]}\n`, 'utf8');
}

/** Reads the history back, checking its shape. */
export function parseHistory(bytes: Uint8Array): PriceHistory {
  return historySchema.parse(JSON.parse(Buffer.from(bytes).toString('utf8'))) as PriceHistory;
}
