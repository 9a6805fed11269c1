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
const rowLine = (runs: TextRun[]) => layoutLines(runs)[0]!;

describe('columnsFromBody', () => {
  it('puts amounts wider than their short header, and left-aligned codes, in their columns', () => {
    // "€/kg" is 16 points wide; the amounts under it are right-aligned and start left of it.
    const rows = [
      rowLine([
        run('3622', 20, 690),
        run('#NO NAME', 60, 690),
        run('da 30 grammi', 290, 690),
        run('1.230,00', 366, 690, 30),
        run('6,90', 470, 690, 16),
      ]),
      rowLine([
        run('20219', 20, 680),
        run('CAMEL', 60, 680),
        run('da 30 grammi', 290, 680),
        run('230,00', 374, 680, 22),
        run('12,90', 466, 680, 20),
      ]),
    ];
    const columns = columnsFromBody(
      HEADER,
      rows.flatMap((line) => line.runs),
    );
    expect(columns.map((column) => column.role)).toEqual(['code', 'product', 'pack', 'reference', 'packPrice']);
    expect(rows.map((line) => cellsOf(line, columns))).toEqual([
      ['3622', '#NO NAME', 'da 30 grammi', '1.230,00', '6,90'],
      ['20219', 'CAMEL', 'da 30 grammi', '230,00', '12,90'],
    ]);
  });

  it('cuts text of two columns that touches between their headers, where the fewest runs cross', () => {
    // A pack wide enough to touch the amounts: no strip of white space between the two columns.
    const rows = [
      rowLine([
        run('1', 20, 690),
        run('A', 60, 690),
        run('astuccio da 20 pezzi molto lungo', 268, 690, 106),
        run('230,00', 374, 690, 22),
        run('6,90', 470, 690, 16),
      ]),
      rowLine([
        run('2', 20, 680),
        run('B', 60, 680),
        run('da 5 pezzi', 300, 680, 40),
        run('1.230,00', 366, 680, 30),
        run('7,90', 470, 680, 16),
      ]),
    ];
    const columns = columnsFromBody(
      HEADER,
      rows.flatMap((line) => line.runs),
    );
    expect(rows.map((line) => cellsOf(line, columns).slice(2, 4))).toEqual([
      ['astuccio da 20 pezzi molto lungo', '230,00'],
      ['da 5 pezzi', '1.230,00'],
    ]);
  });
});
