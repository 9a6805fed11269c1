import { isDeepStrictEqual } from 'node:util';
import * as z from 'zod';
import { releaseVersionSchema } from '../release/release-version.ts';
import { DATASET_CATEGORIES } from '../source/categories.ts';
import { recordObservation, recordRelease, type ListedProduct, type PriceHistory, type RecordedRelease } from './price-history.ts';

/**
 * The price history as a log (docs/dataset.md, "Price history"): a checkpoint (the whole history
 * at one point), then the releases recorded since, each as an event that names only what it
 * changed. A release run reads and writes the head (what the last recorded release listed: bounded
 * by the products, not by time) and the open segment of events, never the whole history; only its
 * readers (the website, `tariff history`) replay the log. Pure.
 */

/** Where the log stands: the last release recorded, what it listed, and every code the history holds. */
export interface HistoryHead {
  release: string | null;
  /** The products of `release`, by code. */
  listed: ListedProduct[];
  /** Every product code in the history, ascending: its product count without reading it. */
  known: number[];
}

/**
 * One release recorded: the products whose fields differ from the head's (new, changed, listed
 * again), the codes the head listed that it no longer does, and its `product_removed` rows. With
 * the head before it, it gives back the release's whole list (`releaseOf`).
 */
export interface ReleaseEvent {
  release: string;
  tariffDate: string;
  changed: ListedProduct[];
  dropped: number[];
  removed: number[];
}

export const emptyHead = (): HistoryHead => ({ release: null, listed: [], known: [] });

const listedOf = (p: ListedProduct): ListedProduct => ({
  admCode: p.admCode,
  name: p.name,
  category: p.category,
  pack: p.pack,
  pricePerPackCents: p.pricePerPackCents,
  referencePriceCents: p.referencePriceCents,
  referenceUnit: p.referenceUnit,
  effectiveFrom: p.effectiveFrom,
});

const byCode = (a: { admCode: number }, b: { admCode: number }) => a.admCode - b.admCode;
const union = (a: readonly number[], b: Iterable<number>) => [...new Set([...a, ...b])].sort((x, y) => x - y);

/** The event that records `dataset` after `head`, and the head after it. */
export function eventOf(head: HistoryHead, dataset: RecordedRelease): { event: ReleaseEvent; head: HistoryHead } {
  const before = new Map(head.listed.map((p) => [p.admCode, p]));
  const listed = dataset.products.map(listedOf).sort(byCode);
  const codes = new Set(listed.map((p) => p.admCode));
  const event: ReleaseEvent = {
    release: dataset.version,
    tariffDate: dataset.tariffDate,
    changed: listed.filter((p) => !isDeepStrictEqual(before.get(p.admCode), p)),
    dropped: head.listed.filter((p) => !codes.has(p.admCode)).map((p) => p.admCode),
    removed: [...new Set(dataset.changes.filter((c) => c.kind === 'product_removed').map((c) => c.admCode))].sort((a, b) => a - b),
  };
  return { event, head: { release: dataset.version, listed, known: union(head.known, codes) } };
}

/** The release an event records, whole, from the head before it; and the head after it. */
export function releaseOf(head: HistoryHead, event: ReleaseEvent): { release: RecordedRelease; head: HistoryHead } {
  const gone = new Set([...event.dropped, ...event.changed.map((p) => p.admCode)]);
  const listed = [...head.listed.filter((p) => !gone.has(p.admCode)), ...event.changed.map(listedOf)].sort(byCode);
  return {
    release: {
      version: event.release,
      tariffDate: event.tariffDate,
      products: listed,
      changes: event.removed.map((admCode) => ({ kind: 'product_removed' as const, admCode })),
    },
    head: {
      release: event.release,
      listed,
      known: union(
        head.known,
        listed.map((p) => p.admCode),
      ),
    },
  };
}

/**
 * The history after the events, from the checkpoint's history and head: what recording each
 * release whole (`recordRelease`) gives, in a time that grows with what the events changed, not
 * with their count times the products. A product listed unchanged from one release to the next
 * only extends its last sighting: that sighting is placed once, when the product changes, leaves,
 * or the log ends, as seen on the last tariff date that listed it (versions name their tariff
 * dates, so the dates never go back). `naiveReplay` is the definition, which the tests hold this to.
 */
export function replay(
  history: PriceHistory,
  head: HistoryHead,
  events: readonly ReleaseEvent[],
): { history: PriceHistory; head: HistoryHead } {
  if (events.length === 0) return { history, head };
  const products = new Map(history.products.map((p) => [p.admCode, p]));
  const listed = new Map(head.listed.map((p) => [p.admCode, p]));
  const known = new Set(head.known);
  // Each listed product's release sighting not placed yet: the product as listed from the event
  // `from` on, by that event's release (the head's products: from the first event, unless it changes them).
  const pending = new Map<number, { product: ListedProduct; from: number }>(head.listed.map((p) => [p.admCode, { product: p, from: 0 }]));
  // In the history, neither listed nor withdrawn (an archived list's products): the next release withdraws them.
  const loose = new Set(history.products.filter((p) => p.withdrawn === null && !listed.has(p.admCode)).map((p) => p.admCode));
  /** Places a product's pending sighting before event `at` changes it: seen by the events from its own to the one before. */
  const place = (code: number, at: number) => {
    const waiting = pending.get(code);
    pending.delete(code);
    if (!waiting || waiting.from >= at) return;
    const { product } = waiting;
    const { release } = events[waiting.from]!;
    const seen = events[at - 1]!.tariffDate;
    products.set(code, recordObservation(products.get(code), { product, from: product.effectiveFrom, seen, release, source: release }));
  };
  events.forEach((event, at) => {
    for (const code of event.dropped) {
      place(code, at);
      listed.delete(code);
      loose.add(code);
    }
    for (const product of event.changed) {
      place(product.admCode, at);
      listed.set(product.admCode, product);
      known.add(product.admCode);
      loose.delete(product.admCode);
      pending.set(product.admCode, { product, from: at });
      const entry = products.get(product.admCode);
      if (entry?.withdrawn) products.set(product.admCode, { ...entry, withdrawn: null });
    }
    // The products the checkpoint's head listed and this release still lists, unchanged: listed again, so not withdrawn.
    if (at === 0)
      for (const code of listed.keys()) {
        const entry = products.get(code);
        if (entry?.withdrawn) products.set(code, { ...entry, withdrawn: null });
      }
    const removed = new Set(event.removed);
    for (const code of loose) {
      const entry = products.get(code);
      if (entry && !entry.withdrawn)
        products.set(code, { ...entry, withdrawn: { from: removed.has(code) ? event.tariffDate : null, release: event.release } });
    }
    loose.clear();
  });
  const last = events.at(-1)!;
  for (const code of [...pending.keys()]) place(code, events.length);
  const sorted = [...listed.values()].sort(byCode);
  return {
    history: { ...history, release: last.release, products: [...products.values()].sort(byCode) },
    head: { release: last.release, listed: sorted, known: [...known].sort((a, b) => a - b) },
  };
}

/** The history after the events, each release recorded whole: the definition `replay` keeps to. */
export function naiveReplay(
  history: PriceHistory,
  head: HistoryHead,
  events: readonly ReleaseEvent[],
): { history: PriceHistory; head: HistoryHead } {
  let state = { history, head };
  for (const event of events) {
    const { release, head: next } = releaseOf(state.head, event);
    state = { history: recordRelease(state.history, release), head: next };
  }
  return state;
}

/** The head a checkpoint starts from when the writer's own is not known: none listed, every code of the history known. */
export const headOfHistory = (history: PriceHistory, listed: HistoryHead['listed'] = []): HistoryHead => ({
  release: history.release,
  listed,
  known: history.products.map((p) => p.admCode).sort((a, b) => a - b),
});

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const listedSchema = z.strictObject({
  admCode: z.number().int().positive(),
  name: z.string().min(1),
  category: z.enum(DATASET_CATEGORIES as [string, ...string[]]),
  pack: z.string(),
  pricePerPackCents: z.number().int().positive(),
  referencePriceCents: z.number().int().positive().nullable(),
  referenceUnit: z.string().nullable(),
  effectiveFrom: z.string().regex(DATE),
});
const codes = z.array(z.number().int().positive());

const headSchema = z.strictObject({
  logVersion: z.literal(1),
  release: releaseVersionSchema.nullable(),
  known: codes,
  listed: z.array(listedSchema),
});

const eventSchema = z.strictObject({
  release: releaseVersionSchema,
  tariffDate: z.string().regex(DATE),
  changed: z.array(listedSchema),
  dropped: codes,
  removed: codes,
});

const segmentSchema = z.strictObject({ logVersion: z.literal(1), events: z.array(eventSchema) });

/** The head as JSON, one product a line, fields in a fixed order: the same head gives the same bytes. */
export function renderHead(head: HistoryHead): Buffer {
  const rows = head.listed.map((p) => JSON.stringify(listedOf(p))).join(',\n');
  const top = JSON.stringify({ logVersion: 1, release: head.release, known: head.known });
  return Buffer.from(`${top.slice(0, -1)},"listed":[${rows ? `\n${rows}\n` : ''}]}\n`, 'utf8');
}

export function parseHead(bytes: Uint8Array): HistoryHead {
  const { release, known, listed } = headSchema.parse(JSON.parse(Buffer.from(bytes).toString('utf8')));
  return { release, known, listed: listed as ListedProduct[] };
}

/** A segment of events as JSON, one event a line: the same events give the same bytes. */
export function renderSegment(events: readonly ReleaseEvent[]): Buffer {
  const rows = events
    .map((e) =>
      JSON.stringify({
        release: e.release,
        tariffDate: e.tariffDate,
        changed: e.changed.map(listedOf),
        dropped: e.dropped,
        removed: e.removed,
      }),
    )
    .join(',\n');
  return Buffer.from(`{"logVersion":1,"events":[${rows ? `\n${rows}\n` : ''}]}\n`, 'utf8');
}

export function parseSegment(bytes: Uint8Array): ReleaseEvent[] {
  return segmentSchema.parse(JSON.parse(Buffer.from(bytes).toString('utf8'))).events as ReleaseEvent[];
}
