import type { Command } from 'commander';
import type { BarcodeStatus } from '../../barcodes/status-rules.ts';
import { errors } from '../../errors.ts';
import { wholeArgument, type Runner } from '../context.ts';
import { renderTable } from '../render-table.ts';
import { gtin14Of, moderationActions } from '../../registry/moderation-actions.ts';
import { publishedTariffCodes } from '../../publish/read-published-rows.ts';
import { openBucket } from '../../storage/open-bucket.ts';
import { BUCKET_OPTION } from '../shared-options.ts';

const OPERATOR = 'operator (cli)';
const STATUSES: BarcodeStatus[] = ['to_confirm', 'approved', 'conflict', 'revoked'];

const matchText = (match: { admCode: number; kind: string; units: number } | null) =>
  match ? `${match.admCode} ${match.kind}×${match.units}` : '-';

export function registerModeration(program: Command, run: Runner): void {
  const barcodes = program.command('barcodes').description('Moderate crowdsourced barcode matches (operator)');
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
                  votes.map((v) => [
                    v.email,
                    v.accountType,
                    v.contributorRef ?? '-',
                    matchText(v),
                    v.submittedAt,
                    v.counted
                      ? 'yes'
                      : v.notCounted === 'not_vetted'
                        ? `no (account not vetted yet: counts from ${v.countsFrom!.slice(0, 10)})`
                        : v.notCounted === 'same_organisation'
                          ? `no (same organisation as ${v.sameOrganisationAs})`
                          : v.notCounted === 'organisation_disagrees'
                            ? 'no (its organisation disagrees)'
                            : 'no (blocked)',
                  ]),
                )
              : 'no vote'),
        );
      }),
    );
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
        const settings = await ctx.settings(options);
        const bucket = await openBucket(settings.bucket, { dataDir: ctx.dataDir, settings, env: ctx.io.env });
        const codes = await publishedTariffCodes(bucket);
        const summary = await ctx.withRegistry((registry) =>
          moderationActions(registry).approve(barcode, match, OPERATOR, ctx.io.now(), (code) => codes.has(code)),
        );
        ctx.result(summary, `${summary.barcode}: approved ${matchText(summary.match)}`);
      }),
    );
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

  const contributors = program.command('contributors').description("Block or unblock an integration's point of sale (operator)");
  for (const [name, blocked] of [
    ['block', true],
    ['unblock', false],
  ] as const) {
    contributors
      .command(name)
      .description(
        blocked
          ? 'Block a contributor: its submissions are refused and its votes stop counting'
          : 'Unblock a contributor: its votes count again',
      )
      .argument('<email>', 'the integration account')
      .argument('<contributorRef>', 'the point of sale, as the integration sends it')
      .addHelpText('after', `\nExample:\n  tariff contributors ${name} cassa@integrazione.example negozio-042`)
      .action(
        run(async (ctx, email: string, ref: string) => {
          await ctx.withRegistry((registry) => moderationActions(registry).blockContributor(email, ref, blocked, OPERATOR, ctx.io.now()));
          ctx.result({ email, contributorRef: ref, blocked }, `${email} ${ref}: ${blocked ? 'blocked' : 'unblocked'}`);
        }),
      );
  }
}
