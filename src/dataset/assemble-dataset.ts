import type { Barcode, DatasetContent } from './model.ts';
import { SCHEMA_VERSION, SOURCE_NAME } from './model.ts';
import type { TariffInForce } from './select-tariff.ts';
import { oneLine } from '../util/clean-text.ts';

export interface AssembledDataset {
  content: DatasetContent;
  /** Matches left out because their tariff code is not in the tariff in force (delisted products). */
  skippedBarcodes: Barcode[];
}

/** Puts the tariff in force and the approved barcodes together in canonical order, names and packs as one clean line. */
export function assembleDataset(tariff: TariffInForce, barcodes: Barcode[]): AssembledDataset {
  const codes = new Set(tariff.products.map((product) => product.admCode));
  const kept: Barcode[] = [];
  const skippedBarcodes: Barcode[] = [];
  for (const barcode of barcodes) (codes.has(barcode.admCode) ? kept : skippedBarcodes).push(barcode);
  kept.sort((a, b) => (a.barcode < b.barcode ? -1 : a.barcode > b.barcode ? 1 : 0));
  return {
    content: {
      schemaVersion: SCHEMA_VERSION,
      tariffDate: tariff.tariffDate,
      source: SOURCE_NAME,
      // The one text rule, before all three writers: a control character in a name must not make
      // one format unreadable (NeDB and U+0085) or a page misleading (U+202E).
      products: tariff.products.map((product) => ({ ...product, name: oneLine(product.name), pack: oneLine(product.pack) })),
      barcodes: kept,
      announced: tariff.announced,
    },
    skippedBarcodes,
  };
}
