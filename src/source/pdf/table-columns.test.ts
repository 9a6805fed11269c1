import { describe, expect, it } from 'vitest';
import { recogniseHeader } from './header-roles.ts';
import { layoutLines } from './layout-lines.ts';
import { cellsOf, columnsFromBody } from './table-columns.ts';
import type { TextRun } from './text-runs.ts';

const run = (text: string, x: number, y: number, width = text.length * 4): TextRun => ({ text, x, y, width, height: 8 });
const HEADER = recogniseHeader(
  layoutLines([
    run('Codice', 20, 700),
    run('Trinciati', 60, 700),
    run('Conf.ne', 300, 700),
    run('€/kg', 380, 700),
    run('€/conf.ne', 440, 700),
  ])[0]!,
)!;
type Cell = [text: string, x: number, width?: number];
/** One body line at height `y`, its cells given left to right. */
const bodyRow = (y: number, ...cells: Cell[]) => layoutLines(cells.map(([text, x, width]) => run(text, x, y, width)))[0]!;
const columnsOf = (rows: ReturnType<typeof bodyRow>[]) =>
  columnsFromBody(
    HEADER,
    rows.flatMap((line) => line.runs),
  );

describe('columnsFromBody', () => {
  it('puts amounts wider than their short header, and left-aligned codes, in their columns', () => {
    // "€/kg" is 16 points wide; the amounts under it are right-aligned and start left of it.
    const rows = [
      bodyRow(690, ['3622', 20], ['#NO NAME', 60], ['da 30 grammi', 290], ['1.230,00', 366, 30], ['6,90', 470, 16]),
      bodyRow(680, ['20219', 20], ['CAMEL', 60], ['da 30 grammi', 290], ['230,00', 374, 22], ['12,90', 466, 20]),
    ];
    const columns = columnsOf(rows);
    expect(columns.map((column) => column.role)).toEqual(['code', 'product', 'pack', 'reference', 'packPrice']);
    expect(rows.map((line) => cellsOf(line, columns))).toEqual([
      ['3622', '#NO NAME', 'da 30 grammi', '1.230,00', '6,90'],
      ['20219', 'CAMEL', 'da 30 grammi', '230,00', '12,90'],
    ]);
  });

  it('cuts text of two columns that touches between their headers, where the fewest runs cross', () => {
    // A pack wide enough to touch the amounts: no strip of white space between the two columns.
    const rows = [
      bodyRow(690, ['1', 20], ['A', 60], ['astuccio da 20 pezzi molto lungo', 268, 106], ['230,00', 374, 22], ['6,90', 470, 16]),
      bodyRow(680, ['2', 20], ['B', 60], ['da 5 pezzi', 300, 40], ['1.230,00', 366, 30], ['7,90', 470, 16]),
    ];
    const columns = columnsOf(rows);
    expect(rows.map((line) => cellsOf(line, columns).slice(2, 4))).toEqual([
      ['astuccio da 20 pezzi molto lungo', '230,00'],
      ['da 5 pezzi', '1.230,00'],
    ]);
  });
});
