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
