import type { Dataset, Product } from '../dataset/model.ts';
import type { Category } from '../source/categories.ts';
import type { ReferenceUnit } from '../source/reference-unit.ts';

import { compareVersions } from '../release/release-version.ts';

/** Version of the history file's shape (docs/dataset.md, "Price history"); 1 lacked the sightings (read, and upgraded). */
export const HISTORY_SCHEMA_VERSION = 2;

/**
 * One step of a product's price: the price from `from` (the date of the list, notice or release
 * that first showed it) until the next step. `lastSeen` is the latest date a source showed this
 * price, so an older list read later can tell whether it falls inside a known step.
 */
export interface PriceStep {
  from: string;
  lastSeen: string;
  pricePerPackCents: number;
  referencePriceCents: number | null;
  referenceUnit: ReferenceUnit | null;
  /** The release that first carried this price; null when only an archived list shows it. */
  release: string | null;
  /** Where it was read: the list's file name, or the release's version. */
  source: string;
}

/**
 * One source's word on one product: its price from `from`, still so on `seen`. A release's sightings
 * of one price from one date are one sighting (the first release that carried it, the last day seen).
 */
export interface PriceSighting {
  from: string;
  seen: string;
  pricePerPackCents: number;
  referencePriceCents: number | null;
  referenceUnit: ReferenceUnit | null;
  /** The release that said it; null for an archived list. */
  release: string | null;
  /** The list's file name, or the release's version. */
  source: string;
  /** The SHA-256 of the archived list's bytes (null for a release, and for a list recorded before digests were kept). */
  sha256: string | null;
  /** What it called the product: the newest sighting names it. */
  name: string;
  category: Category;
  pack: string;
}

/** A product as the history knows it: its latest name, pack and category, and its price steps, oldest first. */
export interface ProductHistory {
  admCode: number;
  name: string;
  category: Category;
  pack: string;
  /** Derived from `sightings` alone (`stepsOf`): the same sightings give the same steps, in whatever order they came. */
  steps: PriceStep[];
  /**
   * Every source's word on the product, in canonical order: what the steps are made from, so that
   * taking one document out gives the history that never had it (`tariff history remove`).
   */
  sightings: PriceSighting[];
  /**
   * Set once a release no longer lists it: `from` the tariff date of the release that dropped it
   * (null when it was already gone before the first release recorded), `release` that release.
   */
  withdrawn: { from: string | null; release: string } | null;
}

/** What a release says of a product that the history records: the fields `recordRelease` reads. */
export type ListedProduct = Pick<
  Product,
  'admCode' | 'name' | 'category' | 'pack' | 'pricePerPackCents' | 'referencePriceCents' | 'referenceUnit' | 'effectiveFrom'
>;

/** A release's fields the history records, as `recordRelease` takes them. */
export type RecordedRelease = Pick<Dataset, 'version' | 'tariffDate'> & {
  products: ListedProduct[];
  changes: Pick<Dataset['changes'][number], 'kind' | 'admCode'>[];
};

/** Every product ever seen, by code, and the newest release recorded. */
export interface PriceHistory {
  schemaVersion: typeof HISTORY_SCHEMA_VERSION;
  /** The newest release recorded (null: only archived lists so far). */
  release: string | null;
  products: ProductHistory[];
}

/** What one source says of one product: its price from `from`, and that it still had it on `seen`. */
export interface PriceObservation {
  product: Pick<Product, 'admCode' | 'name' | 'category' | 'pack' | 'pricePerPackCents' | 'referencePriceCents' | 'referenceUnit'>;
  from: string;
  seen: string;
  release: string | null;
  source: string;
  /** The archived list's SHA-256; absent for a release. */
  sha256?: string | null;
}

export const emptyHistory = (): PriceHistory => ({ schemaVersion: HISTORY_SCHEMA_VERSION, release: null, products: [] });

const samePrice = (a: Pick<PriceStep, 'pricePerPackCents' | 'referencePriceCents' | 'referenceUnit'>, b: typeof a) =>
  a.pricePerPackCents === b.pricePerPackCents && a.referencePriceCents === b.referencePriceCents && a.referenceUnit === b.referenceUnit;

export function sightingOf(observation: PriceObservation): PriceSighting {
  const { product } = observation;
  return {
    from: observation.from,
    seen: observation.seen,
    pricePerPackCents: product.pricePerPackCents,
    referencePriceCents: product.referencePriceCents,
    referenceUnit: product.referenceUnit,
    release: observation.release,
    source: observation.source,
    sha256: observation.sha256 ?? null,
    name: product.name,
    category: product.category,
    pack: product.pack,
  };
}

/** A product's name, pack and category: the newest sighting's (the last, in canonical order, of those seen last). */
export function namingOf(sightings: readonly PriceSighting[]): Pick<ProductHistory, 'name' | 'category' | 'pack'> {
  const sorted = [...sightings].sort(compareSightings);
  const newest = sorted.reduce((best, s) => (s.seen >= best.seen ? s : best), sorted[0]!);
  return { name: newest.name, category: newest.category, pack: newest.pack };
}

const stepOf = (sighting: PriceSighting): PriceStep => ({
  from: sighting.from,
  lastSeen: sighting.seen,
  pricePerPackCents: sighting.pricePerPackCents,
  referencePriceCents: sighting.referencePriceCents,
  referenceUnit: sighting.referenceUnit,
  release: sighting.release,
  source: sighting.source,
});

/** The canonical order of sightings: by date, then day seen, then who said it; ties never depend on arrival. */
function compareSightings(a: PriceSighting, b: PriceSighting): number {
  return (
    a.from.localeCompare(b.from) ||
    a.seen.localeCompare(b.seen) ||
    // On one day an archived list comes before a release: the step is named by the list that first printed it.
    (a.release === null ? 0 : 1) - (b.release === null ? 0 : 1) ||
    (a.release && b.release ? compareVersions(a.release, b.release) : 0) ||
    (a.sha256 ?? '').localeCompare(b.sha256 ?? '') ||
    a.source.localeCompare(b.source) ||
    a.pricePerPackCents - b.pricePerPackCents ||
    (a.referencePriceCents ?? 0) - (b.referencePriceCents ?? 0) ||
    (a.referenceUnit ?? '').localeCompare(b.referenceUnit ?? '')
  );
}

/**
 * A sighting added to a product's: releases that say one price from one date are one sighting
 * (the first release, the last day seen), as is a release that only restates the last release
 * sighting's price from a later list's date (`restated`); a document's sighting is kept once;
 * canonical order.
 */
export function addSighting(sightings: readonly PriceSighting[], sighting: PriceSighting): PriceSighting[] {
  const result = sightings.map((s) => ({ ...s }));
  const same =
    result.find(
      (s) =>
        s.from === sighting.from &&
        samePrice(s, sighting) &&
        (sighting.release !== null
          ? s.release !== null
          : s.release === null && s.sha256 === sighting.sha256 && s.source === sighting.source),
    ) ?? restated(result, sighting);
  if (!same) return [...result, sighting].sort(compareSightings);
  if (sighting.seen > same.seen)
    Object.assign(same, { seen: sighting.seen, name: sighting.name, category: sighting.category, pack: sighting.pack });
  if (same.release !== null && sighting.release !== null && compareVersions(sighting.release, same.release) < 0) {
    same.release = sighting.release;
    same.source = sighting.source;
  }
  return result.sort(compareSightings);
}

/**
 * The release sighting a release's sighting only restates: the product's last release sighting,
 * when the release says the same price from a later date (a new list that left the price as it
 * was) and no source says another price in between. A list's date moves with every list the
 * authority publishes; the price did not, so the history keeps one sighting, seen longer, and
 * grows with the prices, not with the lists.
 */
function restated(sightings: readonly PriceSighting[], sighting: PriceSighting): PriceSighting | undefined {
  if (sighting.release === null) return undefined;
  const last = sightings
    .filter((s) => s.release !== null)
    .reduce<PriceSighting | undefined>((best, s) => (!best || compareSightings(s, best) > 0 ? s : best), undefined);
  if (!last || !samePrice(last, sighting) || sighting.from <= last.from || sighting.seen < last.seen) return undefined;
  const between = sightings.some((s) => !samePrice(s, sighting) && s.from > last.from && s.from <= sighting.from);
  return between ? undefined : last;
}

/** A product's steps: its sightings placed in canonical order, so the same sightings always give the same steps. */
export function stepsOf(sightings: readonly PriceSighting[]): PriceStep[] {
  return [...sightings].sort(compareSightings).reduce<PriceStep[]>((steps, sighting) => placeStep(steps, stepOf(sighting)), []);
}

/**
 * Puts one observation into a product's steps, in any order of arrival: a price equal to the step
 * in force on its date extends that step; a different one starts a step of its own (and joins the
 * next step when that one has the same price); on a step's own first day the newer reading wins.
 * A step keeps the release that first carried it.
 */
export function placeObservation(steps: PriceStep[], observation: PriceObservation): PriceStep[] {
  return placeStep(steps, stepOf(sightingOf(observation)));
}

function placeStep(steps: PriceStep[], step: PriceStep): PriceStep[] {
  const result = steps.map((s) => ({ ...s }));
  const at = result.findLastIndex((s) => s.from <= step.from);
  const current = result[at];
  if (current && samePrice(current, step)) {
    current.lastSeen = current.lastSeen > step.lastSeen ? current.lastSeen : step.lastSeen;
    current.release ??= step.release;
  } else if (current && current.from === step.from) {
    result[at] = step;
  } else {
    // Inside a step seen on both sides of this date, the price went away and came back: the step
    // resumes from its last sighting (the sightings in between were not kept).
    const resumed = current && step.from < current.lastSeen ? { ...current, from: current.lastSeen } : null;
    if (current && resumed) current.lastSeen = current.from;
    result.splice(at + 1, 0, step, ...(resumed ? [resumed] : []));
  }
  return joinEqualNeighbours(result);
}

/** Two steps in a row with one price are one step: the earlier, seen until the later's last sighting. */
function joinEqualNeighbours(steps: PriceStep[]): PriceStep[] {
  const joined: PriceStep[] = [];
  for (const step of steps) {
    const previous = joined.at(-1);
    if (previous && samePrice(previous, step)) {
      if (step.lastSeen > previous.lastSeen) previous.lastSeen = step.lastSeen;
      previous.release ??= step.release;
    } else joined.push(step);
  }
  return joined;
}

/** The history with these observations placed; a product's name, pack and category follow its newest sighting. */
export function recordObservations(history: PriceHistory, observations: PriceObservation[]): PriceHistory {
  const byCode = new Map(history.products.map((entry) => [entry.admCode, entry]));
  for (const observation of observations)
    byCode.set(observation.product.admCode, recordObservation(byCode.get(observation.product.admCode), observation));
  return { ...history, products: [...byCode.values()].sort((a, b) => a.admCode - b.admCode) };
}

/** One product's entry (undefined: not in the history yet) with one observation of it placed. */
export function recordObservation(known: ProductHistory | undefined, observation: PriceObservation): ProductHistory {
  const sightings = addSighting(known?.sightings ?? [], sightingOf(observation));
  return {
    admCode: observation.product.admCode,
    ...namingOf(sightings),
    steps: stepsOf(sightings),
    sightings,
    withdrawn: known?.withdrawn ?? null,
  };
}

/**
 * Records a published release: each product's price from its `effectiveFrom`, seen on the tariff
 * date; a product the history knows that the release no longer lists is withdrawn from that date
 * (or from an unknown date when the release carries no `product_removed` row for it); one listed
 * again is no longer withdrawn.
 */
export function recordRelease(history: PriceHistory, dataset: RecordedRelease): PriceHistory {
  const observations = dataset.products.map((product): PriceObservation => ({
    product,
    from: product.effectiveFrom,
    seen: dataset.tariffDate,
    release: dataset.version,
    source: dataset.version,
  }));
  const recorded = recordObservations(history, observations);
  const listed = new Set(dataset.products.map((product) => product.admCode));
  const removedNow = new Set(dataset.changes.filter((c) => c.kind === 'product_removed').map((c) => c.admCode));
  const products = recorded.products.map((entry): ProductHistory => {
    if (listed.has(entry.admCode)) return entry.withdrawn ? { ...entry, withdrawn: null } : entry;
    if (entry.withdrawn) return entry;
    return { ...entry, withdrawn: { from: removedNow.has(entry.admCode) ? dataset.tariffDate : null, release: dataset.version } };
  });
  return { ...recorded, release: dataset.version, products };
}

/** Observations of the products an archived list prints, on its date. */
export function listObservations(
  products: PriceObservation['product'][],
  effectiveFrom: string,
  source: string,
  sha256: string | null = null,
): PriceObservation[] {
  return products.map((product) => ({ product, from: effectiveFrom, seen: effectiveFrom, release: null, source, sha256 }));
}

/** The sightings a history of schema 1 implies: one per step, as its first source saw it until its last sighting. */
export const sightingsOfSteps = (
  steps: readonly PriceStep[],
  naming: Pick<ProductHistory, 'name' | 'category' | 'pack'>,
): PriceSighting[] =>
  steps
    .map((step) => ({
      from: step.from,
      seen: step.lastSeen,
      pricePerPackCents: step.pricePerPackCents,
      referencePriceCents: step.referencePriceCents,
      referenceUnit: step.referenceUnit,
      release: step.release,
      source: step.source,
      sha256: null,
      ...naming,
    }))
    .sort(compareSightings);
