import type { Command } from 'commander';
import { errors } from '../../errors.ts';
import type { ProductHistory } from '../../history/price-history.ts';
import { oneLine } from '../../util/clean-text.ts';
import { formatEuroCents } from '../../util/format-euro.ts';
import { buildDate, type CommandFlags, type Runner } from '../context.ts';
import { renderTable } from '../render-table.ts';
import { BUCKET_OPTION } from '../shared-options.ts';
import { parseTariffCode } from '../../source/tariff-code.ts';

const euro = (cents: number | null) => (cents === null ? '' : `${formatEuroCents(cents)} €`);

/** One product's steps as the terminal shows them: newest last, as a price moves. */
export function renderProductHistory(product: ProductHistory): string {
  const rows = product.steps.map((step) => [
    step.from,
    euro(step.pricePerPackCents),
    step.referencePriceCents === null ? '' : `${euro(step.referencePriceCents)} per ${step.referenceUnit}`,
    step.lastSeen,
    step.release ? `release ${step.release}` : oneLine(step.source),
  ]);
  const withdrawn = product.withdrawn
    ? `\nwithdrawn${product.withdrawn.from ? ` from ${product.withdrawn.from}` : ''} (release ${product.withdrawn.release} no longer lists it)`
    : '';
  return `${product.admCode} ${product.name} (${product.pack}, ${product.category})\n${renderTable(
    ['from', 'price per pack', 'reference price', 'last seen', 'first carried by'],
    rows,
  )}${withdrawn}`;
}

export function registerHistory(program: Command, run: Runner): void {
  const history = program
    .command('history')
    .description("Show one product's prices over time, from the releases and the archived lists (the bucket's price history)")
    .argument('<code>', 'the tariff code (codice AAMS), e.g. 20663')
    .option(...BUCKET_OPTION)
    .addHelpText(
      'after',
      "\nEvery `tariff release` extends the history; `tariff history import` adds the authority's older lists.\n\nExamples:\n  tariff history 20663\n  tariff history import archive/listino-sigari-2023-10-31.pdf archive/2024/\n  tariff history 20663 --json",
    )
    .action(
      run(async (ctx, code: string, options: CommandFlags) => {
        const admCode = parseTariffCode(code);
        if (admCode === null) throw errors.usage(`${code} is not a tariff code (digits, e.g. 20663)`);
        const bucket = await ctx.bucket(options);
        const { readHistory } = await import('../../history/history-store.ts');
        const { history: recorded } = await readHistory(bucket);
        const product = recorded.products.find((entry) => entry.admCode === admCode);
        if (!product) throw errors.productNotInHistory(admCode, bucket.description);
        ctx.result(product, renderProductHistory(product));
      }),
    );

  history
    .command('import')
    .description("Read the authority's archived price lists (PDF) into the price history, so it starts before the first release")
    .argument('<pdf-or-folder...>', 'archived lists: PDF files, or folders of them')
    .option(...BUCKET_OPTION)
    .option('--date <YYYY-MM-DD>', 'accept lists that take effect up to this day (default: today in Europe/Rome; a later list is refused)')
    .addHelpText('after', '\nA document read before (the same bytes) is skipped. `tariff history remove <file name>` takes one back out.')
    .action(
      run(async (ctx, paths: string[], options: { date?: string }) => {
        const settings = await ctx.settings(options);
        const latest = buildDate(options.date, ctx.io.now());
        // Loaded by a run, not by --help: the PDF reader and the pipeline.
        const { runHistoryImport } = await import('../../pipeline/run-history-import.ts');
        const update = await runHistoryImport({
          ...ctx.writer(settings),
          env: ctx.io.env,
          paths,
          latest,
          now: ctx.io.now(),
        });
        const lists = update.lists
          .map((list) => `${list.source} (${list.effectiveFrom}, ${list.skipped ?? `${list.products} products`})`)
          .join(', ');
        ctx.result(update, `history: read ${lists}; ${update.products} products in ${update.bucket}`);
      }),
    );

  history
    .command('remove')
    .description('Take one imported archived list back out of the price history (a dry run unless --apply)')
    .argument('<source>', 'the file name as `tariff history <code>` shows it, or the SHA-256 of the document')
    .option(...BUCKET_OPTION)
    .option('--apply', 'change the history (without it, only say what would change)')
    .addHelpText(
      'after',
      "\nProducts nothing changed since the import are put back exactly as they were; the others lose only that document's steps.\n\nExample:\n  tariff history remove listino-sigari-2030-01-01.pdf --apply",
    )
    .action(
      run(async (ctx, source: string, options: { apply?: boolean }) => {
        const settings = await ctx.settings(options);
        const { runHistoryRemove } = await import('../../pipeline/run-history-import.ts');
        const removal = await runHistoryRemove({
          ...ctx.writer(settings),
          env: ctx.io.env,
          source,
          apply: options.apply ?? false,
        });
        const what = `${removal.source} (${removal.lists.map((list) => list.effectiveFrom).join(', ')}, sha256 ${removal.sha256.slice(0, 12)}…)`;
        const effect = `${removal.restored} product(s) as before the import${removal.adjusted.length > 0 ? `, ${removal.adjusted.length} changed since: only its steps taken out` : ''}`;
        ctx.result(
          removal,
          removal.applied ? `history: removed ${what}: ${effect}` : `dry run: would remove ${what}: ${effect} (run again with --apply)`,
        );
      }),
    );
}
