import { execFileSync } from 'node:child_process';

/** A product row of a price list, as an independent reader (poppler's pdftotext) sees it. */
export interface IndependentRow {
  admCode: number;
  name: string;
  pack: string;
  /** The amount under the reference header (€/kg conv.le, €/kg, €/1.000 pz.). */
  referencePriceCents: number;
  pricePerPackCents: number;
}

// One product a line in `pdftotext -layout`: code, name, pack and the two prices, columns apart by
// two or more spaces.
const ROW = /^\s*(\d+)\s+(.+?)\s{2,}(\S.*?)\s{2,}(\d{1,3}(?:\.\d{3})*,\d{2})\s+(\d{1,3}(?:\.\d{3})*,\d{2})\s*$/;

/** Month names as the authority prints them in dates ("10 OTTOBRE 2023"): the tests' own, not the builder's. */
export const ITALIAN_MONTHS = [
  'GENNAIO',
  'FEBBRAIO',
  'MARZO',
  'APRILE',
  'MAGGIO',
  'GIUGNO',
  'LUGLIO',
  'AGOSTO',
  'SETTEMBRE',
  'OTTOBRE',
  'NOVEMBRE',
  'DICEMBRE',
];

const cents = (amount: string) => Number(amount.replaceAll('.', '').replace(',', ''));

/**
 * Reads a price list with Debian's `pdftotext -layout` and plain line matching: a reading of the
 * file that shares no code with the builder's PDF reader, to check it against.
 */
export function readWithPdftotext(path: string): {
  rows: IndependentRow[];
  productLines: number;
  listDates: string[];
  headers: string[];
} {
  const text = execFileSync('pdftotext', ['-layout', path, '-'], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const lines = text.split('\n');
  const rows = lines.flatMap((line) => {
    const match = ROW.exec(line);
    if (!match) return [];
    return [
      {
        admCode: Number(match[1]),
        name: match[2]!.replace(/\s+/g, ' '),
        pack: match[3]!,
        referencePriceCents: cents(match[4]!),
        pricePerPackCents: cents(match[5]!),
      },
    ];
  });
  return {
    rows,
    // Every line that starts with a code, matched or not: the count the rows must reach.
    productLines: lines.filter((line) => /^\s*\d+\s+\S/.test(line)).length,
    // As printed: "22/07/2026", "10 OTTOBRE 2023".
    listDates: [...new Set(lines.flatMap((line) => /LISTINO AGGIORNATO AL (.+?)\s*$/.exec(line.trim())?.[1] ?? []))],
    headers: [...new Set(lines.filter((line) => /^Codice\s/.test(line)).map((line) => line.trim().replace(/\s+/g, ' ')))],
  };
}
