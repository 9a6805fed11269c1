import type { Change } from './model.ts';

/** How many changes of each sort a release carries: what a shop or a maintainer reads first. */
export interface ChangeSummary {
  priceRises: number;
  priceCuts: number;
  /** The price per pack stayed, the price per conventional kilogram moved. */
  otherPriceChanges: number;
  added: number;
  removed: number;
  renamed: number;
  repacked: number;
  recategorised: number;
  redated: number;
  barcodesAdded: number;
  barcodesRemoved: number;
}

export function summariseChanges(changes: readonly Change[]): ChangeSummary {
  const summary: ChangeSummary = {
    priceRises: 0,
    priceCuts: 0,
    otherPriceChanges: 0,
    added: 0,
    removed: 0,
    renamed: 0,
    repacked: 0,
    recategorised: 0,
    redated: 0,
    barcodesAdded: 0,
    barcodesRemoved: 0,
  };
  for (const change of changes) {
    switch (change.kind) {
      case 'price_changed': {
        const delta = change.pricePerPackCents! - change.oldPricePerPackCents!;
        if (delta > 0) summary.priceRises += 1;
        else if (delta < 0) summary.priceCuts += 1;
        else summary.otherPriceChanges += 1;
        break;
      }
      case 'product_added':
        summary.added += 1;
        break;
      case 'product_removed':
        summary.removed += 1;
        break;
      case 'renamed':
        summary.renamed += 1;
        break;
      case 'repacked':
        summary.repacked += 1;
        break;
      case 'recategorised':
        summary.recategorised += 1;
        break;
      case 'redated':
        summary.redated += 1;
        break;
      case 'barcode_added':
        summary.barcodesAdded += 1;
        break;
      case 'barcode_removed':
        summary.barcodesRemoved += 1;
        break;
    }
  }
  return summary;
}

const ENGLISH: [keyof ChangeSummary, string][] = [
  ['priceRises', 'price rise(s)'],
  ['priceCuts', 'price cut(s)'],
  ['otherPriceChanges', '€/kg-only change(s)'],
  ['added', 'new product(s)'],
  ['removed', 'withdrawn product(s)'],
  ['renamed', 'renamed'],
  ['repacked', 're-packed'],
  ['recategorised', 'recategorised'],
  ['redated', 're-dated only'],
  ['barcodesAdded', 'barcode(s) added'],
  ['barcodesRemoved', 'barcode(s) removed'],
];

/** One line for an operator: "3 price rise(s), 1 new product(s)", or "none". */
export function describeChangeSummary(summary: ChangeSummary): string {
  const parts = ENGLISH.filter(([key]) => summary[key] > 0).map(([key, words]) => `${summary[key]} ${words}`);
  return parts.length > 0 ? parts.join(', ') : 'none';
}
