import { errors } from '../../errors.ts';
import type { ParsedSource } from '../source-types.ts';
import { throwIfProblems } from './problems.ts';
import { readPdfDocument } from './read-pdf-document.ts';

/**
 * Reads a PDF of the authority, recognised by its content: a category price list, a price-change
 * notice, or a Campione d'Italia list (set aside: never part of the national tariff). Anything else
 * is `source_not_price_list`; a list or notice with problems is `source_invalid`, all of them said
 * in one line.
 */
export async function parsePdfSource(bytes: Uint8Array, source: string): Promise<ParsedSource> {
  const document = await readPdfDocument(bytes, source);
  if (document.kind === 'other')
    throw errors.notPriceList(
      source,
      'no page has the table header of a price list ("Codice | <Categoria> | Conf.ne | €/<unit> | €/conf.ne") or of a price-change notice ("… | Da €/<unit> | A €/<unit> | Pari a €/conf.ne")',
    );
  if (document.kind !== 'campione') throwIfProblems(source, document.problems);
  return { lists: document.lists, notices: document.notices, setAside: document.setAside };
}
