import { describe, expect, it } from 'vitest';
import { interpretDocument } from './interpret-document.ts';
import type { PdfPage, TextRun } from './text-runs.ts';

// Pages drawn as runs at the positions a spreadsheet prints them: the reader's rules, without a PDF.
const run = (text: string, x: number, y: number, height = 8): TextRun => ({ text, x, y, width: text.length * 4.2, height });
const right = (text: string, end: number, y: number) => run(text, end - text.length * 4.2, y);
const title = (y: number, text = 'LISTINO AGGIORNATO AL 3/04/2026') => run(text, 200, y, 9);
const header = (y: number, reference: string | null = '€/kg conv.le', packPrice = '€/conf.ne') => [
  run('Codice', 20, y, 9),
  run('Sigari', 60, y, 9),
  run('Conf.ne', 300, y, 9),
  ...(reference ? [run(reference, 380, y, 9)] : []),
  run(packPrice, 470, y, 9),
];
const row = (y: number, code: string, name: string, reference: string | null, perPack: string) => [
  run(code, 25, y),
  run(name, 60, y),
  run('da 5 pezzi', 300, y),
  ...(reference ? [right(reference, 440, y)] : []),
  right(perPack, 520, y),
];
const page = (number: number, runs: TextRun[]): PdfPage => ({ number, runs });

describe('interpretDocument', () => {
  it('reads a list whose second page continues the table without its header, and stops at a footnote', () => {
    const document = interpretDocument(
      [
        page(1, [title(800), ...header(780), ...row(766, '1', 'PRIMO', '200,00', '5,00'), ...row(752, '2', 'SECONDO', '210,00', '5,25')]),
        page(2, [...row(780, '3', 'TERZO', '220,00', '5,50'), run('* prezzi arrotondati al decimo di euro', 20, 740)]),
      ],
      'lista.pdf',
    );
    expect(document).toMatchObject({
      kind: 'list',
      feedCategory: 'sigari',
      date: '2026-04-03',
      referenceUnit: 'conventional_kg',
    });
    expect([...document.problems]).toEqual([]);
    expect(document.lists[0]!.products.map((p) => [p.admCode, p.name, p.referencePriceCents, p.pricePerPackCents])).toEqual([
      [1, 'PRIMO', 20000, 500],
      [2, 'SECONDO', 21000, 525],
      [3, 'TERZO', 22000, 550],
    ]);
    expect(document.reading.prose.map((line) => line.text)).toContain('* prezzi arrotondati al decimo di euro');
  });

  it("joins a name printed above and below its row's own line, whose name cell is empty", () => {
    const document = interpretDocument(
      [
        page(1, [
          title(800),
          ...header(780),
          ...row(760, '1969', '', '384,00', '4,80'),
          run('BALMORAL DOMINICAN', 60, 765),
          run('PANATELA', 60, 755),
        ]),
      ],
      'lista.pdf',
    );
    expect(document.lists[0]!.products.map((p) => p.name)).toEqual(['BALMORAL DOMINICAN PANATELA']);
  });

  it("sets a Campione d'Italia list aside, whatever its rows, and reads no national price from it", () => {
    const document = interpretDocument(
      [
        page(1, [
          title(800, "LISTINO CAMPIONE D'ITALIA AGGIORNATO AL 3/04/2026"),
          ...header(780, null, '€/conf.ne*'),
          ...row(766, '1', 'PRIMO', null, '3,00'),
        ]),
      ],
      'CDI+SIGARI.pdf',
    );
    expect(document).toMatchObject({ kind: 'campione', lists: [], setAside: [{ kind: 'campione', effectiveFrom: '2026-04-03' }] });
  });

  it('refuses tables of one list priced in different units, and a list without its date', () => {
    const document = interpretDocument(
      [
        page(1, [...header(780), ...row(766, '1', 'PRIMO', '200,00', '5,00')]),
        page(2, [...header(780, '€/kg'), ...row(766, '2', 'SECONDO', '200,00', '5,00')]),
      ],
      'lista.pdf',
    );
    expect(document.lists).toEqual([]);
    expect([...document.problems].map((p) => p.detail)).toEqual([
      'no title with the list\'s date ("LISTINO AGGIORNATO AL …")',
      "the reference price is per kg, an earlier table's per conventional_kg",
    ]);
  });
});
