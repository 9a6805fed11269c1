import type { Command } from 'commander';
import type { BarcodeStatus } from '../../barcodes/status-rules.ts';
import type { BarcodeVote } from '../../registry/records.ts';
import { errors } from '../../errors.ts';
import { wholeArgument, type Runner } from '../context.ts';
import { renderTable } from '../render-table.ts';
import { gtin14Of, moderationActions } from '../../registry/moderation-actions.ts';
import { publishedTariffCodes } from '../../publish/read-published-rows.ts';
import { BUCKET_OPTION } from '../shared-options.ts';
import { OPERATOR } from '../operator.ts';

const STATUSES: BarcodeStatus[] = ['to_confirm', 'approved', 'conflict', 'revoked'];

const matchText = (match: { admCode: number; kind: string; units: number } | null) =>
  match ? `${match.admCode} ${match.kind}×${match.units}` : '-';

/** Whether a vote counts, and if not, why (and from when, for an account not vetted yet). */
function countedText(vote: BarcodeVote): string {
  if (vote.counted) return 'yes';
  if (vote.notCounted === 'not_vetted') return `no (account not vetted yet: counts from ${(vote.countsFrom ?? '').slice(0, 10)})`;
  if (vote.notCounted === 'same_organisation') return `no (same organisation as ${vote.sameOrganisationAs})`;
  if (vote.notCounted === 'organisation_disagrees') return 'no (its organisation disagrees)';
  return 'no (blocked)';
}

function listCommand(barcodes: Command, run: Runner): void {
  barcodes
    .command('list')
    .description('List barcodes with their status, match and number of votes')
    .option('--status <status>', `only this status: ${STATUSES.join(', ')}`)
    .addHelpText('after', '\nExample:\n  tariff barcodes list --status conflict')
    .action(
      run(async (ctx, options: { status?: string }) => {
        if (options.status !== undefined && !(STATUSES as string[]).includes(options.status))
          throw errors.usage(`--status ${options.status} is not one of ${STATUSES.join(', ')}`);
        const list = await ctx.withRegistry((registry) => registry.listBarcodes(options.status as BarcodeStatus | undefined));
        ctx.result(
          list,
          list.length
            ? renderTable(
                ['barcode', 'status', 'match', 'votes', 'decided by', 'updated'],
                list.map((b) => [
                  b.barcode,
                  b.status,
                  matchText(b.match),
                  String(b.votes),
                  b.adminDecision ? 'administrator' : 'votes',
                  b.updatedAt,
                ]),
              )
            : 'no barcode',
        );
      }),
    );
}

function showCommand(barcodes: Command, run: Runner): void {
  barcodes
    .command('show')
    .description("A barcode's status and every vote on it")
    .argument('<barcode>')
    .addHelpText('after', '\nExample:\n  tariff barcodes show 8001001001005')
    .action(
      run(async (ctx, barcode: string) => {
        const found = await ctx.withRegistry((registry) => registry.barcodeVotes(gtin14Of(barcode)));
        if (!found.summary) throw errors.usage(`no submission or decision for barcode ${barcode}`);
        const { summary, votes } = found;
        ctx.result(
          found,
          `${summary.barcode}: ${summary.status} ${matchText(summary.match)}${summary.adminDecision ? ' (administrator)' : ''}\n` +
            (votes.length
              ? renderTable(
                  ['account', 'type', 'contributor', 'match', 'submitted', 'counted'],
                  votes.map((v) => [v.email, v.accountType, v.contributorRef ?? '-', matchText(v), v.submittedAt, countedText(v)]),
                )
              : 'no vote'),
        );
      }),
    );
}

function approveCommand(barcodes: Command, run: Runner): void {
  barcodes
    .command('approve')
    .description('Fix the match of a barcode, whatever the votes say, until changed by the administrator')
    .argument('<barcode>')
    .requiredOption('--adm-code <n>', 'tariff code')
    .option('--kind <kind>', 'pack or carton', 'pack')
    .option('--units <n>', 'units per code (1 for pack; 2 to 1000 for carton)')
    .option(...BUCKET_OPTION)
    .addHelpText(
      'after',
      "\nThe code must be in the bucket's current release. The next `tariff release` publishes the match.\n\nExample:\n  tariff barcodes approve 8001001001012 --adm-code 1001 --kind carton --units 10",
    )
    .action(
      run(async (ctx, barcode: string, options: { admCode: string; kind: string; units?: string; bucket?: string }) => {
        const match = {
          admCode: options.admCode,
          kind: options.kind,
          units: options.units === undefined ? undefined : wholeArgument(options.units, '--units'),
        };
        const bucket = await ctx.bucket(options);
        const codes = await publishedTariffCodes(bucket);
        const summary = await ctx.withRegistry((registry) =>
          moderationActions(registry).approve(barcode, match, OPERATOR, ctx.io.now(), (code) => codes.has(code)),
        );
        ctx.result(summary, `${summary.barcode}: approved ${matchText(summary.match)}`);
      }),
    );
}

function revokeCommand(barcodes: Command, run: Runner): void {
  barcodes
    .command('revoke')
    .description('Revoke a barcode: it leaves the next release and accepts no more submissions')
    .argument('<barcode>')
    .addHelpText('after', '\nExample:\n  tariff barcodes revoke 8001001001005')
    .action(
      run(async (ctx, barcode: string) => {
        const summary = await ctx.withRegistry((registry) => moderationActions(registry).revoke(barcode, OPERATOR, ctx.io.now()));
        ctx.result(summary, `${summary.barcode}: revoked`);
      }),
    );
}

/** `tariff barcodes …`: the operator's moderation commands. */
export function registerModeration(program: Command, run: Runner): void {
  const barcodes = program.command('barcodes').description('Moderate crowdsourced barcode matches (operator)');
  for (const add of [listCommand, showCommand, approveCommand, revokeCommand]) add(barcodes, run);
}
