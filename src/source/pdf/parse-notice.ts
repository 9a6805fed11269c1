import { CATEGORIES } from '../categories.ts';
import { categoryNamed, CATEGORY_NAMES } from '../category-names.ts';
import type { NoticeChange, SourceNotice } from '../source-types.ts';
import { joinRuns, layoutLines } from './layout-lines.ts';
import { effectiveDatesIn } from './notice-date.ts';
import { Problems } from './problems.ts';
import { readProductRow } from './read-row-values.ts';
import { recogniseHeader, type TableHeader } from './table-header.ts';
import { tableRows } from './table-rows.ts';
import type { PdfPage } from './text-runs.ts';

/**
 * Reads a price-change notice (docs/source-format.md): prose stating the day the new prices
 * apply from ("con decorrenza dal …"), and one or more tables `[Codice |] <Categoria> | Conf.ne |
 * Da €/Kg conv.le | A €/Kg conv.le | Pari a €/conf.ne`. A table may go on over the next page,
 * with or without its header repeated. Every problem is collected, with page and row.
 */
export function parseNotice(pages: PdfPage[], source: string): SourceNotice {
  const problems = new Problems();
  const changes: NoticeChange[] = [];
  const prose: string[] = [];
  // The table a page without a header continues, if the previous page ended inside one.
  let open: TableHeader | null = null;

  for (const page of pages) {
    const where = `${source} page ${page.number}`;
    const lines = layoutLines(page.runs);
    let i = 0;
    let table: TableHeader | null = open;
    open = null;
    while (i < lines.length) {
      const header = recogniseHeader(lines[i]!, i);
      if (header?.kind === 'notice') {
        table = header;
        i++;
        continue;
      }
      if (!table) {
        prose.push(joinRuns(lines[i]!.runs));
        i++;
        continue;
      }
      const at = table.at;
      // The table ends at the next header, if not before.
      let next = i;
      while (next < lines.length && recogniseHeader(lines[next]!, next)?.kind !== 'notice') next++;
      const { rows, end } = tableRows(lines.slice(i, next), table.columns, [
        ...(at.code === null ? [] : [at.code]),
        at.fromPerKg!,
        at.perKg,
        at.perPack,
      ]);
      readRows(rows, table, where, problems, changes);
      if (end) {
        i += end.index;
        table = null;
      } else if (next < lines.length) {
        i = next;
      } else {
        open = table;
        break;
      }
    }
  }

  const text = prose.join('\n');
  const dates = effectiveDatesIn(text);
  if (dates.length === 0) problems.add(source, 'no effective date: the text says neither "con decorrenza dal …" nor "a decorrere dal …"');
  if (dates.length > 1) problems.add(source, `more than one effective date (${dates.join(', ')}): split the notice, one date per document`);
  if (changes.length === 0 && problems.count === 0) problems.add(source, 'the notice has no price-change row');
  problems.throwIfAny(source);
  return { source, effectiveFrom: dates[0]!, changes, where: source };
}

function readRows(
  rows: ReturnType<typeof tableRows>['rows'],
  table: TableHeader,
  where: string,
  problems: Problems,
  changes: NoticeChange[],
): void {
  const feedCategory = categoryNamed(table.categoryText);
  if (!feedCategory) {
    problems.add(where, `the table's category "${table.categoryText}" is not one the builder knows (${CATEGORY_NAMES.join(', ')})`);
    return;
  }
  const prices = [
    { column: table.at.fromPerKg!, label: 'old price per conventional kg', example: '1.234,00' },
    { column: table.at.perKg, label: 'new price per conventional kg', example: '1.234,00' },
    { column: table.at.perPack, label: 'new price per pack', example: '5,50' },
  ];
  for (const row of rows) {
    const read = readProductRow(row, table.at, prices, where, problems);
    if (!read) continue;
    const [fromPerKgCents, pricePerKgCents, pricePerPackCents] = read.cents as [number, number, number];
    changes.push({
      feedCategory,
      category: CATEGORIES[feedCategory],
      admCode: read.admCode,
      name: read.name,
      pack: read.pack,
      fromPerKgCents,
      pricePerKgCents,
      pricePerPackCents,
      where: read.where,
    });
  }
}
