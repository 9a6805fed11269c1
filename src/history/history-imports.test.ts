import { describe, expect, it } from 'vitest';
import { cigarRow } from '../../test/helpers/rows.ts';
import type { Product } from '../dataset/model.ts';
import { renderHistory } from './history-file.ts';
import { cleanSourceName, importRecord, removeImport } from './history-imports.ts';
import { emptyHistory, listObservations, recordObservations, recordRelease, type PriceHistory } from './price-history.ts';

const product = (admCode: number, pricePerPackCents: number, name = `P${admCode}`): Product =>
  cigarRow(admCode, { name, pricePerPackCents, pricePerKgCents: pricePerPackCents * 40, effectiveFrom: '2026-07-22' });

const document = { sha256: 'a'.repeat(64), lists: [{ effectiveFrom: '2024-06-01', products: 2 }], importedAt: '2026-11-25T10:00:00.000Z' };

/** Imports one list the way `tariff history import` does, with its record. */
function imported(history: PriceHistory, source: string, date: string, ...products: Product[]) {
  const after = recordObservations(history, listObservations(products, date, source));
  return { after, record: importRecord(history, after, { ...document, source }) };
}

describe('imported lists taken back out', () => {
  it('restores the history byte for byte when nothing changed since, dropping products only the list brought', () => {
    const before = recordObservations(emptyHistory(), listObservations([product(684, 450)], '2023-10-31', 'old.pdf'));
    const { after, record } = imported(before, 'mid.pdf', '2024-06-01', product(684, 470, 'RENAMED'), product(999, 300));
    expect(record.products.map((entry) => [entry.admCode, entry.before === null])).toEqual([
      [684, false],
      [999, true],
    ]);
    const removal = removeImport(after, record);
    expect(removal).toMatchObject({ restored: 2, adjusted: [] });
    expect(renderHistory(removal.history).equals(renderHistory(before))).toBe(true);
  });

  it('keeps what came after: a product a release changed since loses only the list’s own steps', () => {
    const before = recordObservations(emptyHistory(), listObservations([product(684, 450)], '2023-10-31', 'old.pdf'));
    const { after, record } = imported(before, 'mid.pdf', '2024-06-01', product(684, 470));
    const later = recordRelease(after, { version: '20260722.1', tariffDate: '2026-07-22', products: [product(684, 480)], changes: [] });
    const removal = removeImport(later, record);
    expect(removal).toMatchObject({ restored: 0, adjusted: [684] });
    expect(removal.history.products[0]!.steps.map((step) => [step.from, step.pricePerPackCents, step.source])).toEqual([
      ['2023-10-31', 450, 'old.pdf'],
      ['2026-07-22', 480, '20260722.1'],
    ]);
    expect(removal.history.release).toBe('20260722.1');
  });

  it('stores a file name on one line, without control or bidirectional characters', () => {
    expect(cleanSourceName('listino\nsigari\u202e2026.pdf')).toBe('listino sigari 2026.pdf');
    expect(cleanSourceName('\u001b[31m')).toBe('[31m');
    expect(cleanSourceName('\u200f\n')).toBe('unnamed document');
  });
});

describe('taking a document out gives the history that never had it', () => {
  /** Three lists whose products overlap: equal prices that extend another's step, other prices, names that change. */
  const lists = {
    'a.pdf': { date: '2023-10-31', products: [product(1, 100), product(2, 200), product(3, 300)] },
    'b.pdf': { date: '2024-06-01', products: [product(1, 100, 'P1 NEW'), product(2, 250), product(4, 400)] },
    'c.pdf': { date: '2024-01-01', products: [product(1, 110), product(3, 300), product(5, 500)] },
  } as const;
  type Name = keyof typeof lists;
  const sha = (name: Name) => name[0]!.repeat(64);
  const release = { version: '20240701.1', tariffDate: '2024-07-01', products: [product(1, 100), product(6, 600)], changes: [] };

  /** The history after importing `names` in this order (a release after the first when `withRelease`), with each import's record. */
  function importAll(names: Name[], withRelease: boolean) {
    let history = emptyHistory();
    const records = new Map<Name, ReturnType<typeof importRecord>>();
    names.forEach((name, i) => {
      const after = recordObservations(history, listObservations([...lists[name].products], lists[name].date, name, sha(name)));
      records.set(name, importRecord(history, after, { ...document, source: name, sha256: sha(name) }));
      history = withRelease && i === 0 ? recordRelease(after, release) : after;
    });
    return { history, records };
  }

  const orders: Name[][] = [
    ['a.pdf', 'b.pdf', 'c.pdf'],
    ['a.pdf', 'c.pdf', 'b.pdf'],
    ['b.pdf', 'a.pdf', 'c.pdf'],
    ['b.pdf', 'c.pdf', 'a.pdf'],
    ['c.pdf', 'a.pdf', 'b.pdf'],
    ['c.pdf', 'b.pdf', 'a.pdf'],
  ];

  it.each(orders.map((order) => order.join(', ')))('imported as %s, each removed in turn equals importing the others only', (orderText) => {
    const order = orderText.split(', ') as Name[];
    const { history, records } = importAll(order, false);
    for (const removed of order) {
      const wanted = importAll(
        order.filter((name) => name !== removed),
        false,
      ).history;
      const result = removeImport(history, records.get(removed)!).history;
      expect(result.products, `${orderText} without ${removed}`).toEqual(wanted.products);
      expect(renderHistory(result).equals(renderHistory(wanted))).toBe(true);
    }
  });

  it('a release recorded between imports: removing a list keeps what the release said, and what the other lists said', () => {
    const { history, records } = importAll(['a.pdf', 'b.pdf', 'c.pdf'], true);
    const result = removeImport(history, records.get('a.pdf')!).history;
    const one = result.products.find((p) => p.admCode === 1)!;
    // b's equal price only extended a's step: it stays, seen by b and the release.
    expect(one.steps.map((step) => [step.from, step.pricePerPackCents])).toEqual([
      ['2024-01-01', 110],
      ['2024-06-01', 100],
    ]);
    expect(result.products.find((p) => p.admCode === 3)!.steps.map((step) => step.source)).toEqual(['c.pdf']);
  });
});
