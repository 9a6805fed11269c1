import type { Command } from 'commander';
import { errors } from '../../errors.ts';
import { sourceFormat } from '../../source/parse-source.ts';
import { inspectDocument } from '../../source/pdf/inspect-document.ts';
import { readSources } from '../../fetch/read-sources.ts';
import type { Runner } from '../context.ts';
import { inspectionCsv, inspectionText } from '../render-inspection.ts';

export function registerInspect(program: Command, run: Runner): void {
  program
    .command('inspect')
    .description(
      "Show how one of the authority's PDFs reads: kind, category, date, the columns found with their x ranges, every row, every problem",
    )
    .argument('<file-or-url>', 'a PDF file, or an http(s) URL of one')
    .option('--csv', 'print the rows as CSV (page, row, then one column per role)')
    .option('--no-rows', 'leave the rows out of the text report')
    .addHelpText(
      'after',
      '\nExit status: 0 when the document reads as a list or a notice without problems, 1 otherwise.\n\nExamples:\n  tariff inspect fixtures/adm/listino-sigari-2026-07-22.pdf --no-rows\n  tariff inspect https://www.adm.gov.it/…/2-LIST-22-07-2026.pdf --csv > sigari.csv',
    )
    .action(
      run(async (ctx, spec: string, options: { csv?: boolean; rows: boolean }) => {
        const [document] = await readSources([spec], await ctx.settings());
        if (!document || sourceFormat(document.bytes) !== 'pdf') throw errors.notPriceList(spec, 'not a PDF: tariff inspect reads PDFs');
        const inspection = await inspectDocument(document.bytes, document.name);
        if (options.csv && !ctx.json) ctx.io.stdout.write(inspectionCsv(inspection));
        else ctx.result(inspection, inspectionText(inspection, { rows: options.rows }));
        return inspection.kind !== 'other' && inspection.problems.length === 0 ? 0 : 1;
      }),
    );
}
