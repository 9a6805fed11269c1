import type { Dataset, Product } from '../dataset/model.ts';
import type { Category } from '../source/categories.ts';
import type { ReferenceUnit } from '../source/reference-unit.ts';

/** Version of the history file's shape (docs/dataset.md, "Price history"). */
export const HISTORY_SCHEMA_VERSION = 1;

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

/** A product as the history knows it: its latest name, pack and category, and its price steps, oldest first. */
export interface ProductHistory {
  admCode: number;
  name: string;
  category: Category;
  pack: string;
  steps: PriceStep[];
  /**
   * Set once a release no longer lists it: `from` the tariff date of the release that dropped it
   * (null when it was already gone before the first release recorded), `release` that release.
   */
  withdrawn: { from: string | null; release: string } | null;
}

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
}

export const emptyHistory = (): PriceHistory => ({ schemaVersion: HISTORY_SCHEMA_VERSION, release: null, products: [] });

const samePrice = (a: Pick<PriceStep, 'pricePerPackCents' | 'referencePriceCents' | 'referenceUnit'>, b: typeof a) =>
  a.pricePerPackCents === b.pricePerPackCents && a.referencePriceCents === b.referencePriceCents && a.referenceUnit === b.referenceUnit;

function stepOf(observation: PriceObservation): PriceStep {
  const { product } = observation;
  return {
    from: observation.from,
    lastSeen: observation.seen,
    pricePerPackCents: product.pricePerPackCents,
    referencePriceCents: product.referencePriceCents,
    referenceUnit: product.referenceUnit,
    release: observation.release,
    source: observation.source,
  };
}

/**
 * Puts one observation into a product's steps, in any order of arrival: a price equal to the step
 * in force on its date extends that step; a different one starts a step of its own (and joins the
 * next step when that one has the same price); on a step's own first day the newer reading wins.
 * A step keeps the release that first carried it.
 */
export function placeObservation(steps: PriceStep[], observation: PriceObservation): PriceStep[] {
  const step = stepOf(observation);
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
  for (const observation of observations) {
    const { product } = observation;
    const known = byCode.get(product.admCode);
    const newest = !known || known.steps.every((s) => s.lastSeen <= observation.seen);
    const entry: ProductHistory = {
      admCode: product.admCode,
      name: newest ? product.name : known.name,
      category: newest ? product.category : known.category,
      pack: newest ? product.pack : known.pack,
      steps: placeObservation(known?.steps ?? [], observation),
      withdrawn: known?.withdrawn ?? null,
    };
    byCode.set(product.admCode, entry);
  }
  return { ...history, products: [...byCode.values()].sort((a, b) => a.admCode - b.admCode) };
}

/**
 * Records a published release: each product's price from its `effectiveFrom`, seen on the tariff
 * date; a product the history knows that the release no longer lists is withdrawn from that date
 * (or from an unknown date when the release carries no `product_removed` row for it); one listed
 * again is no longer withdrawn.
 */
export function recordRelease(
  history: PriceHistory,
  dataset: Pick<Dataset, 'version' | 'tariffDate' | 'products' | 'changes'>,
): PriceHistory {
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
export function listObservations(products: PriceObservation['product'][], effectiveFrom: string, source: string): PriceObservation[] {
  return products.map((product) => ({ product, from: effectiveFrom, seen: effectiveFrom, release: null, source }));
}
