import { describe, expect, it } from 'vitest';
import {
  emptyHead,
  eventOf,
  headOfHistory,
  naiveReplay,
  parseHead,
  parseSegment,
  renderHead,
  renderSegment,
  replay,
  type HistoryHead,
  type ReleaseEvent,
} from './history-log.ts';
import {
  emptyHistory,
  listObservations,
  recordObservations,
  recordRelease,
  type PriceHistory,
  type RecordedRelease,
} from './price-history.ts';
import { life } from '../../test/helpers/history-life.ts';

/** The events a writer appends for these releases from `head`, and the head after them. */
function events(head: HistoryHead, releases: RecordedRelease[]): { events: ReleaseEvent[]; head: HistoryHead } {
  const out: ReleaseEvent[] = [];
  for (const release of releases) {
    const next = eventOf(head, release);
    out.push(next.event);
    head = next.head;
  }
  return { events: out, head };
}

/** An archived list's products (older prices, and one product no release lists): what imports put in a checkpoint. */
function archived(history: PriceHistory, releases: RecordedRelease[]): PriceHistory {
  const products = releases[0]!.products.slice(0, 10).map((p) => ({ ...p, pricePerPackCents: p.pricePerPackCents - 50 }));
  const only = { ...products[0]!, admCode: 9_999, name: 'SOLO IN ARCHIVIO' };
  return recordObservations(history, listObservations([...products, only], '2025-06-01', 'listino-2025.pdf', 'a'.repeat(64)));
}

describe('the price history as a log', () => {
  it.each([1, 2, 3, 4, 5, 6, 7, 8])('replays to what recording each release whole gives (life %i)', (seed) => {
    const releases = life(seed, 60);
    const whole = releases.reduce(recordRelease, emptyHistory());
    const log = events(emptyHead(), releases);
    const replayed = replay(emptyHistory(), emptyHead(), log.events);
    expect(replayed.history).toEqual(whole);
    expect(replayed.head).toEqual(log.head);
    expect(naiveReplay(emptyHistory(), emptyHead(), log.events).history).toEqual(whole);
  });

  it('replays from a checkpoint with archived lists in it and a head of its own, or one that lists nothing', () => {
    const releases = life(11, 80);
    // The checkpoint: the first 30 releases, then an archived list imported (its product no release lists).
    const start = archived(releases.slice(0, 30).reduce(recordRelease, emptyHistory()), releases);
    const whole = releases.slice(30).reduce(recordRelease, start);
    const writerHead = events(emptyHead(), releases.slice(0, 30)).head;
    for (const base of [{ ...writerHead, known: headOfHistory(start).known }, headOfHistory(start)]) {
      const log = events(base, releases.slice(30));
      expect(replay(start, base, log.events).history).toEqual(whole);
    }
    // The archived list's own product is withdrawn by the first release after it, from an unknown date.
    expect(whole.products.find((p) => p.admCode === 9_999)?.withdrawn).toEqual({ from: null, release: releases[30]!.version });

    // A head that lists a product its checkpoint holds as withdrawn: the first release listing it takes that back.
    const listedCode = writerHead.listed[0]!.admCode;
    const odd: PriceHistory = {
      ...start,
      products: start.products.map((p) =>
        p.admCode === listedCode ? { ...p, withdrawn: { from: null, release: p.steps[0]!.release! } } : p,
      ),
    };
    const log = events(writerHead, releases.slice(30));
    expect(replay(odd, writerHead, log.events).history).toEqual(naiveReplay(odd, writerHead, log.events).history);
  });

  it('names in an event only what the release changed', () => {
    const releases = life(3, 20);
    const { head } = events(emptyHead(), releases);
    const last = releases.at(-1)!;
    // The same list again, the next day: nothing changed, nothing dropped.
    const again = eventOf(head, { ...last, version: '20991231.1', tariffDate: '2099-12-31', changes: [] });
    expect(again.event).toEqual({ release: '20991231.1', tariffDate: '2099-12-31', changed: [], dropped: [], removed: [] });
    // One price moved and one product gone: those two, no more.
    const [first, second, ...rest] = [...last.products].sort((a, b) => a.admCode - b.admCode);
    const moved = { ...first!, pricePerPackCents: first!.pricePerPackCents + 1 };
    const next = eventOf(again.head, {
      version: '20991231.2',
      tariffDate: '2099-12-31',
      products: [moved, ...rest],
      changes: [{ kind: 'product_removed', admCode: second!.admCode }],
    });
    expect(next.event.changed).toEqual([moved]);
    expect(next.event.dropped).toEqual([second!.admCode]);
    expect(next.event.removed).toEqual([second!.admCode]);
    expect(next.head.listed).toHaveLength(last.products.length - 1);
  });

  it('renders heads and segments the same for the same content, and reads them back', () => {
    const releases = life(5, 10);
    const log = events(emptyHead(), releases);
    const segment = renderSegment(log.events);
    expect(renderSegment(structuredClone(log.events)).equals(segment)).toBe(true);
    expect(parseSegment(segment)).toEqual(log.events);
    const head = renderHead(log.head);
    expect(parseHead(head)).toEqual(log.head);
    expect(renderHead(parseHead(head)).equals(head)).toBe(true);
    expect(() => parseSegment(Buffer.from('{"logVersion":2,"events":[]}'))).toThrow();
    expect(() => parseHead(Buffer.from('{"logVersion":1,"release":null,"known":[],"listed":[{"admCode":1}]}'))).toThrow();
  });
});
