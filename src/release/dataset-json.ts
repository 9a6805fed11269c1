import * as z from 'zod';
import { DATASET_CATEGORIES } from '../source/categories.ts';
import {
  announcedFields,
  barcodeFields,
  CHANGE_KINDS,
  changeFields,
  productFields,
  SCHEMA_VERSION,
  type Dataset,
} from '../dataset/model.ts';
import { PACK_UNITS } from '../source/parse-pack.ts';
import { releaseVersionSchema } from './release-version.ts';

/** `conventional_kg`, `kg`, `1000_pieces`, `10_ml`: src/source/reference-unit.ts. */
const REFERENCE_UNIT = /^(conventional_)?(\d+_)?[a-z]+$/;

const productSchema = z.strictObject({
  admCode: z.number().int().positive(),
  name: z.string().min(1),
  category: z.enum(DATASET_CATEGORIES as [string, ...string[]]),
  pack: z.string().min(1),
  packQuantity: z.number().positive().nullable(),
  packUnit: z.enum(PACK_UNITS).nullable(),
  pricePerKgCents: z.number().int().positive().nullable(),
  pricePerPackCents: z.number().int().positive(),
  effectiveFrom: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
  // Releases built before the reference unit was added have neither field.
  referencePriceCents: z.number().int().positive().nullable().default(null),
  referenceUnit: z.string().regex(REFERENCE_UNIT).nullable().default(null),
});

const barcodeSchema = z.strictObject({
  barcode: z.string().regex(/^\d{8}(\d{5,6})?$/),
  admCode: z.number().int().positive(),
  kind: z.enum(['pack', 'carton']),
  units: z.number().int().min(1).max(1000),
});

const DATE = /^\d{4}-\d{2}-\d{2}$/;
/** A product's fields in a change row: nullable, since an added product has no old side and a removed one no new side. */
const stateFields = {
  name: z.string().nullable(),
  category: productSchema.shape.category.nullable(),
  pack: z.string().nullable(),
  packQuantity: z.number().nullable(),
  packUnit: productSchema.shape.packUnit,
  pricePerKgCents: z.number().int().nullable(),
  pricePerPackCents: z.number().int().nullable(),
  effectiveFrom: z.string().regex(DATE).nullable(),
  referencePriceCents: z.number().int().nullable().default(null),
  referenceUnit: productSchema.shape.referenceUnit,
};
const oldStateFields = Object.fromEntries(
  Object.entries(stateFields).map(([field, schema]) => [`old${field[0]!.toUpperCase()}${field.slice(1)}`, schema]),
);
const changeSchema = z.strictObject({
  kind: z.enum(CHANGE_KINDS),
  admCode: z.number().int().positive(),
  barcode: barcodeSchema.shape.barcode.nullable(),
  barcodeKind: barcodeSchema.shape.kind.nullable(),
  units: barcodeSchema.shape.units.nullable(),
  ...oldStateFields,
  ...stateFields,
});

const announcedSchema = z.strictObject({
  admCode: z.number().int().positive(),
  effectiveFrom: z.string().regex(DATE),
  pricePerPackCents: z.number().int().positive(),
  pricePerKgCents: z.number().int().positive().nullable(),
  referencePriceCents: z.number().int().positive(),
  referenceUnit: z.string().regex(REFERENCE_UNIT),
  source: z.string().min(1),
});

const datasetSchema = z.strictObject({
  schemaVersion: z.literal(SCHEMA_VERSION),
  version: releaseVersionSchema,
  tariffDate: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
  source: z.string(),
  // Releases built before changes were added have neither field: they read as a first release.
  changesSince: releaseVersionSchema.nullable().default(null),
  products: z.array(productSchema),
  barcodes: z.array(barcodeSchema),
  changes: z.array(changeSchema).default([]),
  // Releases built before announced prices were added have none.
  announced: z.array(announcedSchema).default([]),
});

/**
 * The `json` format: one JSON document, one product, barcode, change or announced price per line so that `zcat | grep`
 * and line diffs work on it (layout in docs/dataset.md).
 */
export function renderDatasetJson(dataset: Dataset): Buffer {
  const head = JSON.stringify({
    schemaVersion: dataset.schemaVersion,
    version: dataset.version,
    tariffDate: dataset.tariffDate,
    source: dataset.source,
    changesSince: dataset.changesSince,
  });
  const rows = (items: unknown[]) => (items.length === 0 ? '[]' : `[\n${items.map((item) => JSON.stringify(item)).join(',\n')}\n]`);
  const text = `${head.slice(0, -1)},"products":${rows(dataset.products.map(productFields))},"barcodes":${rows(dataset.barcodes.map(barcodeFields))},"changes":${rows(dataset.changes.map(changeFields))},"announced":${rows(dataset.announced.map(announcedFields))}}\n`;
  return Buffer.from(text, 'utf8');
}

/** Reads the `json` format back, checking its shape. */
export function parseDatasetJson(bytes: Uint8Array): Dataset {
  return datasetSchema.parse(JSON.parse(Buffer.from(bytes).toString('utf8'))) as Dataset;
}
