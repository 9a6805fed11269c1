import { describe, expect, it } from 'vitest';
import { parseHistory, renderHistory } from './history-file.ts';
import { emptyHistory, listObservations, recordObservations } from './price-history.ts';

describe('history file', () => {
  const history = recordObservations(
    emptyHistory(),
    listObservations(
      [
        {
          admCode: 2,
          name: 'B',
          category: 'cigars',
          pack: 'da 5 pezzi',
          pricePerPackCents: 450,
          referencePriceCents: 18000,
          referenceUnit: 'conventional_kg',
        },
        {
          admCode: 1,
          name: 'A',
          category: 'cigarettes',
          pack: 'da 20 pezzi',
          pricePerPackCents: 600,
          referencePriceCents: null,
          referenceUnit: null,
        },
      ],
      '2023-10-31',
      'listino.pdf',
    ),
  );

  it('reads back what it writes, products by code, one per line', () => {
    const bytes = renderHistory(history);
    expect(parseHistory(bytes)).toEqual(history);
    expect(
      bytes
        .toString('utf8')
        .split('\n')
        .slice(1, 3)
        .map((line) => JSON.parse(line.replace(/,$/, '')).admCode),
    ).toEqual([1, 2]);
  });

  it('refuses a file of another shape, naming the field', () => {
    const broken = Buffer.from(renderHistory(history).toString('utf8').replace('"pricePerPackCents":450', '"pricePerPackCents":"4,50"'));
    expect(() => parseHistory(broken)).toThrow(/pricePerPackCents/);
  });
});
