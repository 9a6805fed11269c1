import { describe, expect, it } from 'vitest';
import { layoutLines } from './layout-lines.ts';
import { cellsOf, columnsOf, headerCells } from './table-columns.ts';
import { recogniseHeader } from './table-header.ts';
import { tableRows } from './table-rows.ts';
import type { TextRun } from './text-runs.ts';

const run = (text: string, x: number, y: number, width = text.length * 4, height = 7.56): TextRun => ({ text, x, y, width, height });

// The header of the real cigar list, with the positions the PDF reader reports for it.
const HEADER = [
  run('Codice', 23, 734.5, 28, 8.4),
  run('Sigari', 56.2, 734.5, 23.3, 8.4),
  run('Conf.ne', 433.1, 734.5, 31.3, 8.4),
  run('€/kg conv.le', 479.4, 734.5, 47.7, 8.4),
  run('€/conf.ne', 535.3, 734.5, 36.8, 8.4),
];

describe('layoutLines', () => {
  it('puts runs a fraction of a point apart on one line, and lines 11 pt apart on separate lines', () => {
    const lines = layoutLines([run('da 20 pezzi', 429.9, 724.1), run('20663', 26.6, 723.9), run('20664', 26.6, 712.9)]);
    expect(lines.map((line) => line.runs.map((r) => r.text))).toEqual([['20663', 'da 20 pezzi'], ['20664']]);
  });
});

describe('columns under the header', () => {
  const header = recogniseHeader(layoutLines(HEADER)[0]!, 0)!;

  it('recognises a price list header and names its category', () => {
    expect(header).toMatchObject({ kind: 'list', categoryText: 'Sigari', at: { code: 0, name: 1, pack: 2, perKg: 3, perPack: 4 } });
  });

  it('keeps a pack wider than "Conf.ne" in the pack column, and a long name in the name column', () => {
    const line = layoutLines([
      run('21872', 26.6, 700),
      run('AMBASCIATOR ITALICO BIANCO STELLATO RAFFINATO CON UN NOME MOLTO LUNGO', 56, 700, 340),
      run('astuccio da 20 pezzi', 414, 700, 70),
      run('212,00', 506.9, 700, 23.2),
      run('5,30', 559.3, 700, 14.8),
    ])[0]!;
    expect(cellsOf(line, header.columns)).toEqual([
      '21872',
      'AMBASCIATOR ITALICO BIANCO STELLATO RAFFINATO CON UN NOME MOLTO LUNGO',
      'astuccio da 20 pezzi',
      '212,00',
      '5,30',
    ]);
  });

  it('reads a glued pack ("da5 pezzi") as the pack, whatever its width', () => {
    const line = layoutLines([
      run('21872', 26.6, 700),
      run('NAME', 56, 700),
      run('da5 pezzi', 433.1, 700, 32),
      run('212,00', 506.9, 700, 23.2),
      run('5,30', 559.3, 700, 14.8),
    ])[0]!;
    expect(cellsOf(line, header.columns)[2]).toBe('da5 pezzi');
  });

  it('joins header runs that are one cell, and keeps cells a word-gap apart separate', () => {
    const cells = headerCells(
      layoutLines([run('Da', 360, 500, 10, 8.4), run('€/Kg conv.le', 372, 500, 48, 8.4), run('A', 430, 500, 5, 8.4)])[0]!,
    );
    expect(cells.map((cell) => cell.text)).toEqual(['Da €/Kg conv.le', 'A']);
    expect(columnsOf(cells)[0]).toMatchObject({ from: -Infinity });
  });
});

describe('tableRows', () => {
  const header = recogniseHeader(layoutLines(HEADER)[0]!, 0)!;
  const anchor = [0, 3, 4];
  /** A product row's runs at the real list's column positions (empty cells left out). */
  const row = (y: number, ...cells: string[]) => [30, 56, 433, 510, 560].flatMap((x, i) => (cells[i] ? [run(cells[i]!, x, y)] : []));

  it('joins a name wrapped over two lines of its cell to its row, top line first', () => {
    // The name's two lines sit above and below the row's baseline, as a spreadsheet centres a wrapped cell.
    const wrapped = [run('FIRST HALF OF', 56, 703.8), run('THE NAME', 56, 696.2)];
    const lines = layoutLines([
      ...row(700, '1', '', 'da 5 pezzi', '1,00', '2,00'),
      ...wrapped,
      ...row(689, '2', 'NEXT', 'da 5 pezzi', '1,00', '2,00'),
    ]);
    const { rows, end } = tableRows(lines, header.columns, anchor);
    expect(end).toBeNull();
    expect(rows.map((row) => row.cells.slice(0, 2))).toEqual([
      ['1', 'FIRST HALF OF THE NAME'],
      ['2', 'NEXT'],
    ]);
  });

  it('ends the table at a line far from every row', () => {
    const lines = layoutLines([...row(700, '1', 'A', '', '1,00', '2,00'), run('Il Direttore', 56, 650)]);
    const { rows, end } = tableRows(lines, header.columns, anchor);
    expect(rows).toHaveLength(1);
    expect(end).toEqual({ index: 1, text: 'Il Direttore' });
  });
});
