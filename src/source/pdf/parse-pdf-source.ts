import { errors } from '../../errors.ts';
import type { ParsedSource } from '../source-types.ts';
import { layoutLines } from './layout-lines.ts';
import { parseNotice } from './parse-notice.ts';
import { parsePriceList } from './parse-price-list.ts';
import { readPdfRuns } from './read-pdf-runs.ts';
import { recogniseHeader } from './table-header.ts';
import type { PdfPage } from './text-runs.ts';

export type PdfKind = 'list' | 'notice';

/**
 * What a PDF is, from its table headers: a category price list, a price-change notice, or
 * neither (`source_not_price_list`).
 */
export function pdfKind(pages: PdfPage[], source: string): PdfKind {
  for (const page of pages) {
    for (const [i, line] of layoutLines(page.runs).entries()) {
      const header = recogniseHeader(line, i);
      if (header) return header.kind;
    }
  }
  throw errors.notPriceList(
    source,
    'no page has the table header of a price list ("Codice | <Categoria> | Conf.ne | €/kg conv.le | €/conf.ne") or of a price-change notice ("… | Da €/Kg conv.le | A €/Kg conv.le | Pari a €/conf.ne")',
  );
}

/** Reads a PDF of the authority: a price list or a price-change notice, recognised by content. */
export async function parsePdfSource(bytes: Uint8Array, source: string): Promise<ParsedSource> {
  const pages = await readPdfRuns(bytes, source);
  return pdfKind(pages, source) === 'list'
    ? { lists: [parsePriceList(pages, source)], notices: [] }
    : { lists: [], notices: [parseNotice(pages, source)] };
}
