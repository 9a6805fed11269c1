import type { Change, ChangeKind } from './model.ts';

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

/** Where each kind is counted; price changes split into rises, cuts and €/kg-only. */
const COUNTED_AS: Record<Exclude<ChangeKind, 'price_changed'>, keyof ChangeSummary> = {
  product_added: 'added',
  product_removed: 'removed',
  renamed: 'renamed',
  repacked: 'repacked',
  recategorised: 'recategorised',
  redated: 'redated',
  barcode_added: 'barcodesAdded',
  barcode_removed: 'barcodesRemoved',
};

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
    if (change.kind !== 'price_changed') {
      summary[COUNTED_AS[change.kind]] += 1;
      continue;
    }
    const delta = change.pricePerPackCents! - change.oldPricePerPackCents!;
    summary[delta > 0 ? 'priceRises' : delta < 0 ? 'priceCuts' : 'otherPriceChanges'] += 1;
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
