import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  beginText,
  endText,
  moveText,
  PDFArray,
  PDFDocument,
  PDFNumber,
  PDFOperator,
  PDFOperatorNames,
  setFontAndSize,
  StandardFonts,
} from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { readPdfRuns } from '../../src/source/pdf/read-pdf-runs.ts';
import { REPO } from '../helpers/run-cli.ts';

/**
 * A one-page PDF whose single text operation (TJ) writes `parts`: strings, and numbers that move
 * the pen left (negative: right) by thousandths of an em, as a PDF producer writes kerning.
 */
async function oneOperationPdf(parts: (string | number)[], size = 10): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const page = doc.addPage([300, 200]);
  const name = page.node.newFontDictionary('F1', font.ref);
  const operands = PDFArray.withContext(doc.context);
  for (const part of parts) operands.push(typeof part === 'string' ? font.encodeText(part) : PDFNumber.of(part));
  page.pushOperators(
    beginText(),
    setFontAndSize(name, size),
    moveText(20, 100),
    PDFOperator.of(PDFOperatorNames.ShowTextAdjusted, [operands]),
    endText(),
  );
  return doc.save({ useObjectStreams: false });
}

const texts = async (bytes: Uint8Array) => (await readPdfRuns(bytes, 'test.pdf'))[0]!.runs.map((run) => run.text);

describe('readPdfRuns', () => {
  it("reads the real list's header and first row as five runs each, on one baseline, left to right", async () => {
    const pages = await readPdfRuns(readFileSync(join(REPO, 'fixtures/adm/listino-sigari-2026-07-22.pdf')), 'sigari.pdf');
    expect(pages.map((page) => page.number)).toEqual(Array.from({ length: 47 }, (_, i) => i + 1));
    const header = pages[0]!.runs.slice(0, 5);
    expect(header.map((run) => run.text)).toEqual(['Codice', 'Sigari', 'Conf.ne', '€/kg conv.le', '€/conf.ne']);
    // The spreadsheet's font is 8.4 pt; boxes hold the visible text only, not the cells' padding.
    for (const run of header) expect(run.height).toBeCloseTo(8.4, 1);
    expect(header[0]!.x + header[0]!.width).toBeLessThan(header[1]!.x - 3);
    const row = pages[0]!.runs.slice(5, 10);
    expect(row.map((run) => run.text)).toEqual(['20663', '2012 BY OSCAR VALLADARES COROJO ROBUSTO', 'da 20 pezzi', '2.400,00', '240,00']);
    expect(new Set(row.map((run) => Math.round(run.y))).size).toBe(1);
  });

  it('cuts one text operation where the pen jumps, so two cells written together still come apart', async () => {
    expect(await texts(await oneOperationPdf(['20663', -8000, 'TOSCANO']))).toEqual(['20663', 'TOSCANO']);
  });

  it('reads a narrow gap inside an operation as a space and a kerning pair as none', async () => {
    expect(await texts(await oneOperationPdf(['da', -300, '20', 40, 'pezzi']))).toEqual(['da 20pezzi']);
  });

  it('drops spaces at the ends of a run, and its box holds only the visible text', async () => {
    const [run] = (await readPdfRuns(await oneOperationPdf(['  da 5 pezzi  ']), 'test.pdf'))[0]!.runs;
    expect(run!.text).toBe('da 5 pezzi');
    expect(run!.x).toBeGreaterThan(25);
    expect(run!.width).toBeLessThan(50);
  });

  it('names why a file does not read', async () => {
    await expect(readPdfRuns(new TextEncoder().encode('not a pdf at all'), 'x.pdf')).rejects.toMatchObject({
      code: 'source_pdf_unreadable',
      message: expect.stringMatching(/x\.pdf.*not a valid PDF/),
    });
  });
});
