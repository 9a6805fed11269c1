import { XMLParser } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { cigarRow, manifestOf } from '../../../test/helpers/rows.ts';
import type { Product } from '../../dataset/model.ts';
import { releaseChanges } from '../../dataset/release-changes.ts';
import { releaseFeed } from './release-feed.ts';
import { describeNotesItalian, NOTE_LINES_KEPT, releaseNotes } from './release-notes.ts';
import { LINES_PER_PAGE, releaseDetailPage, releasesPage } from './release-pages.ts';

const product = (admCode: number, overrides: Partial<Product> = {}) =>
  cigarRow(admCode, {
    name: `SIGARO ${admCode}`,
    pricePerKgCents: 100_000,
    pricePerPackCents: 1000,
    effectiveFrom: '2026-07-22',
    ...overrides,
  });
const manifest = (version: string) =>
  manifestOf(version, { generatedAt: '2026-08-01T06:00:00+02:00', counts: { products: 4, barcodes: 0 } });
const older = { tariffDate: '2026-07-22', products: [product(1), product(2), product(3), product(4)], barcodes: [] };
const newer = {
  tariffDate: '2026-08-01',
  products: [
    product(1, { pricePerPackCents: 1100, effectiveFrom: '2026-08-01' }),
    product(2, { pricePerPackCents: 1500, effectiveFrom: '2026-08-01' }),
    product(3, { pricePerPackCents: 900, effectiveFrom: '2026-08-01', name: 'SIGARO <3> & CO' }),
    product(5, { effectiveFrom: '2026-08-01' }),
  ],
  barcodes: [],
};

describe('release notes', () => {
  const notes = releaseNotes(manifest('20260801.1'), { changesSince: '20260722.1', changes: releaseChanges(older, newer) });

  it('sorts rises and cuts by how much they move, and says the counts in Italian', () => {
    expect(notes.rises.map((l) => [l.admCode, l.before, l.after])).toEqual([
      [2, 1000, 1500],
      [1, 1000, 1100],
    ]);
    expect(notes.cuts.map((l) => l.admCode)).toEqual([3]);
    expect(notes.added.map((l) => l.admCode)).toEqual([5]);
    expect(notes.removed.map((l) => [l.admCode, l.before, l.after])).toEqual([[4, 1000, null]]);
    expect(notes.other).toEqual([expect.objectContaining({ admCode: 3, what: 'nome: SIGARO 3 → SIGARO <3> & CO' })]);
    expect(describeNotesItalian(notes)).toBe(
      '2 aumenti di prezzo, 1 riduzione di prezzo, 1 nuovo prodotto, 1 prodotto ritirato, 1 nome cambiato.',
    );
    expect(describeNotesItalian({ ...notes, changesSince: null })).toBe('Primo rilascio: nessun rilascio precedente con cui confrontarlo.');
  });

  it('escapes names on the page and in the feed', () => {
    const page = releasesPage([notes], false);
    expect(page).toContain('SIGARO &lt;3&gt; &amp; CO');
    expect(page).not.toContain('SIGARO <3>');
    const feed = releaseFeed([notes], 'https://tariffa.example.it/', '2026-08-01T00:00:00Z');
    const parsed = new XMLParser({ ignoreAttributes: false }).parse(feed);
    // The HTML content survives the XML round trip whole, still escaped as HTML inside.
    expect(parsed.feed.entry.content['#text']).toContain('SIGARO &lt;3&gt; &amp; CO');
    expect(parsed.feed.entry.id).toBe('https://tariffa.example.it/aggiornamenti/20260801.1');
  });

  it('gives an empty feed a date', () => {
    const parsed = new XMLParser().parse(releaseFeed([], 'https://tariffa.example.it', '2026-08-01T00:00:00.000Z'));
    expect(parsed.feed.updated).toBe('2026-08-01T00:00:00.000Z');
    expect(parsed.feed.entry).toBeUndefined();
  });

  it(`keeps ${NOTE_LINES_KEPT} lines a list, the largest moves, counts the rest and says where they are`, () => {
    const many = NOTE_LINES_KEPT + 1_500;
    const before = { tariffDate: '2026-07-22', products: Array.from({ length: many }, (_, i) => product(i + 1)), barcodes: [] };
    // Product i rises by i cents: the kept lines are the largest rises, from the last product down.
    const after = {
      tariffDate: '2026-08-01',
      products: before.products.map((p) => ({ ...p, pricePerPackCents: 1000 + p.admCode, effectiveFrom: '2026-08-01' })),
      barcodes: [],
    };
    const big = releaseNotes(manifest('20260801.1'), { changesSince: '20260722.1', changes: releaseChanges(before, after) });
    expect(big.rises).toHaveLength(NOTE_LINES_KEPT);
    expect(big.totals.rises).toBe(many);
    expect(big.summary.priceRises).toBe(many);
    expect(big.rises[0]!.admCode).toBe(many);
    expect(big.rises.at(-1)!.admCode).toBe(many - NOTE_LINES_KEPT + 1);
    const lastPage = releaseDetailPage(big, false, NOTE_LINES_KEPT / LINES_PER_PAGE);
    expect(lastPage).toContain(`Aumenti di prezzo (${many.toLocaleString('it-IT')})`);
    expect(lastPage).toContain("Gli altri 1500 non sono elencati qui: l'elenco completo è nel dataset");
    expect(releaseDetailPage(big, false, 1)).not.toContain('Gli altri');
  });
});
