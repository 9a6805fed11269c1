import { CATEGORIES } from '../categories.ts';
import { categoryNamed, CATEGORY_NAMES } from '../category-names.ts';
import type { SourceList, SourceProduct } from '../source-types.ts';
import { parseCalendarDate } from '../../util/dates.ts';
import { joinRuns, layoutLines } from './layout-lines.ts';
import { Problems } from './problems.ts';
import { readProductRow } from './read-row-values.ts';
import { recogniseHeader } from './table-header.ts';
import { tableRows } from './table-rows.ts';
import type { PdfPage } from './text-runs.ts';

const LIST_DATE = /LISTINO\s+AGGIORNATO\s+AL\s+(\d{1,2}\/\d{1,2}\/\d{4})/i;
/** Page furniture that may follow a table: page numbers. */
const FURNITURE = /^(pag(ina|\.)?\s*\d+(\s*(di|\/)\s*\d+)?|\d+\s*(di|\/)\s*\d+)$/i;

/**
 * Reads one of the authority's category price lists (docs/source-format.md): on every page the
 * line `LISTINO AGGIORNATO AL dd/mm/yyyy`, the header `Codice | <Categoria> | Conf.ne | €/kg
 * conv.le | €/conf.ne`, then one product a row. Values are read by column from their positions,
 * so a long name or a pack written without spaces stays in its field. Collects every problem of
 * the document, each with its page and row, before failing.
 */
export function parsePriceList(pages: PdfPage[], source: string): SourceList {
  const problems = new Problems();
  const products: SourceProduct[] = [];
  let date: { iso: string; page: number } | null = null;
  let category: { text: string; page: number } | null = null;

  for (const page of pages) {
    if (page.runs.length === 0) continue;
    const where = `${source} page ${page.number}`;
    const lines = layoutLines(page.runs);
    const headerIndex = lines.findIndex((line, i) => recogniseHeader(line, i)?.kind === 'list');
    const dateMatch = lines.map((line) => LIST_DATE.exec(joinRuns(line.runs))).find(Boolean);

    if (!dateMatch) problems.add(where, 'no "LISTINO AGGIORNATO AL dd/mm/yyyy" line');
    else {
      const iso = parseCalendarDate(dateMatch[1]!);
      if (!iso) problems.add(where, `"${dateMatch[0]}" is not a real date`);
      else if (!date) date = { iso, page: page.number };
      else if (date.iso !== iso) problems.add(where, `the list date ${dateMatch[1]} differs from ${date.iso} on page ${date.page}`);
    }
    if (headerIndex === -1) {
      problems.add(where, 'no table header "Codice | <Categoria> | Conf.ne | €/kg conv.le | €/conf.ne"');
      continue;
    }
    const header = recogniseHeader(lines[headerIndex]!, headerIndex)!;
    if (!category) category = { text: header.categoryText, page: page.number };
    else if (categoryNamed(category.text) !== categoryNamed(header.categoryText)) {
      problems.add(where, `the header names the category "${header.categoryText}", page ${category.page} names "${category.text}"`);
    }

    const { rows, end } = tableRows(lines.slice(headerIndex + 1), header.columns, [header.at.code!, header.at.perKg, header.at.perPack]);
    if (end && !FURNITURE.test(end.text))
      problems.add(`${where}, below row ${rows.length}`, `text outside the table's rows: "${end.text}"`);
    const prices = [
      { column: header.at.perKg, label: 'price per conventional kg', example: '1.234,00' },
      { column: header.at.perPack, label: 'price per pack', example: '5,50' },
    ];
    for (const row of rows) {
      const read = readProductRow(row, header.at, prices, where, problems);
      if (read)
        products.push({
          admCode: read.admCode!,
          name: read.name,
          pack: read.pack,
          pricePerKgCents: read.cents[0]!,
          pricePerPackCents: read.cents[1]!,
          where: read.where,
        });
    }
  }

  const feedCategory = category ? categoryNamed(category.text) : null;
  if (category && !feedCategory)
    problems.add(
      `${source} page ${category.page}`,
      `the header's category "${category.text}" is not one the builder knows (${CATEGORY_NAMES.join(', ')})`,
    );
  if (!category && problems.count === 0) problems.add(source, 'the document has no text');
  if (category && products.length === 0 && problems.count === 0) problems.add(source, 'the list has no product row');
  problems.throwIfAny(source);
  return { source, feedCategory: feedCategory!, category: CATEGORIES[feedCategory!], effectiveFrom: date!.iso, products, where: source };
}
