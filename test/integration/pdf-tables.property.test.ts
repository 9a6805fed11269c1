import fc from 'fast-check';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { makePriceListPdf, wrapName, type Align, type ListLayout, type ListRow } from '../../fixtures/adm-pdf.ts';
import { parsePdfSource } from '../../src/source/pdf/parse-pdf-source.ts';
import { ITALIAN_MONTHS } from '../helpers/pdftotext-reading.ts';

// Tables printed the authority's way at random geometry, read back exactly: the reader must find
// columns, rows, wrapped names, continued pages, headers and dates from what the page shows.

const WORDS = [
  'AURORA',
  'ROSSA',
  'BLU',
  'GOLD',
  'CORONA',
  'ROBUSTO',
  "KING'S",
  'TORO',
  'SELECTION',
  'NO.',
  '1',
  '821',
  'CITTÀ',
  'DOMINICAN',
  'PANATELA',
  'SHORT',
  'X',
  'LEÓN',
  '&',
];
const PACKS = [
  'da 20 pezzi',
  'astuccio da 20 pezzi',
  'cartoccio da 10 pezzi',
  'da 50 grammi',
  'da 1000 grammi',
  'da5 pezzi',
  'da 6 sigari',
];
const CATEGORIES = [
  'Sigarette',
  'Sigari',
  'Sigaretti',
  'Trinciato per sigarette',
  'Altri tabacchi da fumo',
  'Tabacchi da fiuto e da mastico',
  'Prodotti da inalazione senza combustione',
  'Liquidi da inalazione',
];
const REFERENCE_HEADERS: [string, string][] = [
  ['€/kg conv.le', 'conventional_kg'],
  ['€/kg', 'kg'],
  ['€/1.000 pz.', '1000_pieces'],
  ['€/10 ml', '10_ml'],
];

const euro = (cents: number) => `${Math.floor(cents / 100).toLocaleString('de-DE')},${String(cents % 100).padStart(2, '0')}`;
const align = fc.constantFrom<Align>('left', 'centre', 'right');

const tableArb = fc.record({
  rows: fc.uniqueArray(
    fc.record({
      code: fc.integer({ min: 1, max: 99999 }),
      name: fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 9 }).map((words) => `MARCA ${words.join(' ')}`),
      pack: fc.constantFrom(...PACKS),
      reference: fc.integer({ min: 1, max: 9_999_999 }),
      perPack: fc.integer({ min: 1, max: 999_999 }),
    }),
    { selector: (row) => row.code, minLength: 1, maxLength: 70 },
  ),
  category: fc.constantFrom(...CATEGORIES),
  reference: fc.constantFrom(...REFERENCE_HEADERS),
  packPriceHeader: fc.constantFrom('€/conf.ne', '€/Conf.ne'),
  fontSize: fc.double({ min: 7, max: 11, noNaN: true }),
  pitch: fc.double({ min: 1.35, max: 1.7, noNaN: true }),
  nameWidth: fc.integer({ min: 110, max: 260 }),
  slack: fc.array(fc.double({ min: 0, max: 30, noNaN: true }), { minLength: 5, maxLength: 5 }),
  // The real lists leave at least one text height between two columns' headers.
  gaps: fc.array(fc.double({ min: 1, max: 2.5, noNaN: true }), { minLength: 4, maxLength: 4 }),
  aligns: fc.tuple(align, align, align, align),
  headerAligns: fc.array(align, { minLength: 5, maxLength: 5 }),
  swapPrices: fc.boolean(),
  rowsPerPage: fc.integer({ min: 5, max: 45 }),
  repeatHeader: fc.boolean(),
  date: fc.record({
    day: fc.integer({ min: 1, max: 28 }),
    month: fc.integer({ min: 1, max: 12 }),
    year: fc.integer({ min: 2020, max: 2030 }),
    style: fc.nat(3),
  }),
  footnote: fc.boolean(),
});

type Table = typeof tableArb extends fc.Arbitrary<infer T> ? T : never;

const pdfFont = PDFDocument.create().then((doc) => doc.embedFont(StandardFonts.Helvetica));
const pdfBold = PDFDocument.create().then((doc) => doc.embedFont(StandardFonts.HelveticaBold));

function printedDate({ day, month, year, style }: Table['date']): string {
  const dd = String(day).padStart(2, '0');
  const mm = String(month).padStart(2, '0');
  return [
    `${dd}/${mm}/${year}`,
    `${day}/${mm}/${year}`,
    `${dd} ${ITALIAN_MONTHS[month - 1]} ${year}`,
    `${day}° ${ITALIAN_MONTHS[month - 1]!.toLowerCase()} ${year}`,
  ][style]!;
}

/** The table's layout: each column as wide as its widest text (header included, as a spreadsheet fits it) plus slack, then a gap. */
async function layoutOf(table: Table, rows: ListRow[]): Promise<ListLayout> {
  const font = await pdfFont;
  const bold = await pdfBold;
  const size = table.fontSize;
  const headers = ['Codice', table.category, 'Conf.ne', table.reference[0], table.packPriceHeader];
  const widest = (i: number) =>
    Math.max(bold.widthOfTextAtSize(headers[i]!, size * 1.1), ...rows.map((row) => font.widthOfTextAtSize(row[i]!, size)));
  const nameHeader = bold.widthOfTextAtSize(table.category, size * 1.1);
  const widths = [widest(0), Math.max(table.nameWidth, nameHeader), widest(2), widest(3), widest(4)].map((w, i) => w + table.slack[i]!);
  // Printed left to right: code, name, pack, then the two prices in either order.
  const order = table.swapPrices ? [0, 1, 2, 4, 3] : [0, 1, 2, 3, 4];
  const xs: number[] = [];
  let x = 20;
  order.forEach((column, i) => {
    xs[column] = x;
    x += widths[column]! + (table.gaps[i] ?? 0) * size;
  });
  const aligns: Align[] = [table.aligns[0], 'left', table.aligns[1], table.aligns[2], table.aligns[3]];
  return {
    columns: widths.map((width, i) => ({ x: xs[i]!, width, align: aligns[i]!, headerAlign: table.headerAligns[i]! })),
    fontSize: size,
    headerSize: size * 1.1,
    rowPitch: size * table.pitch,
  };
}

describe('the PDF table reader on lists printed at random', () => {
  it('reads every row exactly, whatever the widths, alignments, wrapped names, page breaks, headers and date', async () => {
    await fc.assert(
      fc.asyncProperty(tableArb, async (table) => {
        const rows: ListRow[] = table.rows.map((row) => [String(row.code), row.name, row.pack, euro(row.reference), euro(row.perPack)]);
        const layout = await layoutOf(table, rows);
        const font = await pdfFont;
        const fits = (text: string) => font.widthOfTextAtSize(text, table.fontSize) <= layout.columns[1]!.width;
        // A name that cannot wrap within its cell in two lines would be cut by a spreadsheet too: shorten it.
        for (const row of rows) while (!fits(row[1]) && !wrapName(row[1], fits)) row[1] = row[1].slice(0, row[1].lastIndexOf(' '));
        const pdf = await makePriceListPdf({
          category: table.category,
          date: printedDate(table.date),
          rows,
          layout,
          referenceHeader: table.reference[0],
          packPriceHeader: table.packPriceHeader,
          wrapNames: true,
          rowsPerPage: table.rowsPerPage,
          repeatHeader: table.repeatHeader,
          footnote: table.footnote ? '* Il rivenditore è autorizzato ad arrotondare il prezzo di vendita.' : undefined,
        });
        const { lists } = await parsePdfSource(pdf, 'random.pdf');
        const { day, month, year } = table.date;
        expect(lists[0]).toMatchObject({
          effectiveFrom: `${year}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`,
          referenceUnit: table.reference[1],
        });
        expect(
          lists[0]!.products.map((p) => [String(p.admCode), p.name, p.pack, euro(p.referencePriceCents), euro(p.pricePerPackCents)]),
        ).toEqual(rows);
      }),
      { numRuns: Number(process.env.PROPERTY_RUNS ?? 60) },
    );
  });

  it('refuses a wrapped line printed as near to the row above as to the row below, rather than guess whose name it is', async () => {
    const doc = await PDFDocument.create();
    const font = await doc.embedFont(StandardFonts.Helvetica);
    const page = doc.addPage([595.2, 841.68]);
    const text = (t: string, x: number, y: number) => page.drawText(t, { x, y, size: 8, font });
    text('LISTINO AGGIORNATO AL 01/11/2026', 200, 760);
    ['Codice', 'Sigari', 'Conf.ne', '€/kg conv.le', '€/conf.ne'].forEach((h, i) => text(h, [23, 60, 400, 460, 530][i]!, 740));
    const row = (y: number, code: string, name: string) => {
      [code, name, 'da 5 pezzi', '200,00', '5,00'].forEach((t, i) => t && text(t, [25, 60, 400, 470, 540][i]!, y));
    };
    row(726, '1', 'PRIMO');
    text('SECONDA META', 60, 719);
    row(712, '2', '');
    await expect(parsePdfSource(await doc.save(), 'half-pitch.pdf')).rejects.toMatchObject({
      code: 'source_invalid',
      message: expect.stringMatching(/"SECONDA META" is about as near to row 1 as to row 2: cannot tell which it belongs to/),
    });
  });
});
