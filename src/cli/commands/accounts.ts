import type { Command } from 'commander';
import { cleanLabel } from '../../registry/key-rules.ts';
import { moderationActions } from '../../registry/moderation-actions.ts';
import { errors } from '../../errors.ts';
import { createKey } from '../../registry/create-key.ts';
import { normaliseEmail } from '../../registry/email.ts';
import { ACCOUNT_TYPES, type Account, type AccountType, type Registry } from '../../registry/registry.ts';
import { wholeArgument, type Runner } from '../context.ts';
import { renderTable } from '../render-table.ts';

/** Operator actions are recorded in the audit log under this actor. */
const OPERATOR = 'operator (cli)';

function email(value: string): string {
  const normalised = normaliseEmail(value);
  if (!normalised) throw errors.invalidEmail(value);
  return normalised;
}

async function requireAccount(registry: Registry, address: string): Promise<Account> {
  const account = await registry.findAccount(email(address));
  if (!account) throw errors.accountNotFound(address);
  return account;
}

const accountRow = (a: Account) => [
  a.email,
  a.type,
  a.blocked ? 'blocked' : a.vettedAt === null ? 'not vetted' : 'active',
  a.admin ? 'yes' : '',
  a.organisation ?? '',
  String(a.submitLimit),
  a.createdAt,
];

export function registerAccounts(program: Command, run: Runner): void {
  const accounts = program.command('accounts').description('Manage accounts in the registry (operator)');
  accounts
    .command('create')
    .description('Create an account')
    .argument('<email>', 'the e-mail address the account signs in with')
    .requiredOption('--type <type>', `account type: ${ACCOUNT_TYPES.join(', ')}`)
    .option('--submit-limit <n>', 'barcode submissions per hour (default 100)')
    .addHelpText('after', '\nExample:\n  tariff accounts create tabacchi.rossi@example.it --type User')
    .action(
      run(async (ctx, address: string, options: { type: string; submitLimit?: string }) => {
        if (!(ACCOUNT_TYPES as readonly string[]).includes(options.type))
          throw errors.usage(`--type ${options.type} is not one of ${ACCOUNT_TYPES.join(', ')}`);
        const submitLimit = wholeArgument(options.submitLimit, '--submit-limit');
        const account = await ctx.withRegistry((registry) =>
          registry.createAccount({ email: email(address), type: options.type as AccountType, submitLimit }, ctx.io.now()),
        );
        ctx.result(account, `created ${account.email} (${account.type}, ${account.submitLimit} submissions/hour)`);
      }),
    );
  accounts
    .command('list')
    .description('List the accounts')
    .addHelpText('after', '\nExample:\n  tariff accounts list --json')
    .action(
      run(async (ctx) => {
        const list = await ctx.withRegistry((registry) => registry.listAccounts());
        ctx.result(
          list,
          list.length
            ? renderTable(['email', 'type', 'state', 'admin', 'organisation', 'submit/hour', 'created'], list.map(accountRow))
            : 'no account',
        );
      }),
    );
  for (const [name, blocked] of [
    ['block', true],
    ['unblock', false],
  ] as const) {
    accounts
      .command(name)
      .description(blocked ? 'Block an account: its keys stop working at once' : 'Unblock an account')
      .argument('<email>')
      .addHelpText('after', `\nExample:\n  tariff accounts ${name} tabacchi.rossi@example.it`)
      .action(
        run(async (ctx, address: string) => {
          const account = await ctx.withRegistry((registry) =>
            moderationActions(registry).blockAccount(email(address), blocked, OPERATOR, ctx.io.now()),
          );
          ctx.result(account, `${account.email} ${blocked ? 'blocked' : 'unblocked'}`);
        }),
      );
  }
  accounts
    .command('vet')
    .description('Vet a self-service account now: its votes count at once, without waiting the vetting days')
    .argument('<email>')
    .addHelpText(
      'after',
      '\nSelf-service accounts are vetted by themselves after TARIFF_VETTING_DAYS (default 7).\n\nExample:\n  tariff accounts vet tabacchi.rossi@example.it',
    )
    .action(
      run(async (ctx, address: string) => {
        const account = await ctx.withRegistry((registry) => registry.vetAccount(email(address), OPERATOR, ctx.io.now()));
        ctx.result(account, `${account.email} vetted: its votes count`);
      }),
    );
  accounts
    .command('admin')
    .description("Let an account use the website's moderation desk (or, with --remove, no longer)")
    .argument('<email>')
    .option('--remove', 'take the administrator flag away')
    .addHelpText('after', '\nExample:\n  tariff accounts admin moderazione@example.it')
    .action(
      run(async (ctx, address: string, options: { remove?: boolean }) => {
        const account = await ctx.withRegistry((registry) => registry.setAdmin(email(address), !options.remove, OPERATOR, ctx.io.now()));
        ctx.result(account, `${account.email} ${account.admin ? 'is an administrator' : 'is no longer an administrator'}`);
      }),
    );
  accounts
    .command('set-limit')
    .description("Set an account's hourly barcode submission limit")
    .argument('<email>')
    .requiredOption('--submit <n>', 'submissions per hour')
    .addHelpText('after', '\nExample:\n  tariff accounts set-limit cassa@integrazione.example --submit 5000')
    .action(
      run(async (ctx, address: string, options: { submit: string }) => {
        const limit = wholeArgument(options.submit, '--submit')!;
        const account = await ctx.withRegistry((registry) => registry.setSubmitLimit(email(address), limit, OPERATOR, ctx.io.now()));
        ctx.result(account, `${account.email}: ${account.submitLimit} submissions/hour`);
      }),
    );

  const keys = program.command('keys').description("Manage an account's API keys (operator)");
  keys
    .command('create')
    .description('Create an API key; the full key is printed once and never stored')
    .argument('<email>')
    .option('--label <text>', 'a note for the owner', '')
    .addHelpText(
      'after',
      '\nWith --json: {"key": "ttd_…", …}.\n\nExample:\n  tariff keys create tabacchi.rossi@example.it --label "cassa 1"',
    )
    .action(
      run(async (ctx, address: string, options: { label: string }) => {
        const created = await ctx.withRegistry(async (registry) =>
          createKey(registry, await requireAccount(registry, address), options.label, ctx.io.now()),
        );
        ctx.result({ key: created.key, ...created.record }, created.key);
        if (!ctx.json) ctx.io.stderr.write('tariff: this is the only time the full key is shown: store it now\n');
      }),
    );
  keys
    .command('list')
    .description("List an account's active keys (first characters, label, created, last used)")
    .argument('<email>')
    .option('--all', 'include revoked keys')
    .addHelpText('after', '\nExample:\n  tariff keys list tabacchi.rossi@example.it')
    .action(
      run(async (ctx, address: string, options: { all?: boolean }) => {
        const list = await ctx.withRegistry(async (registry) =>
          registry.listKeys((await requireAccount(registry, address)).id, { includeRevoked: options.all }),
        );
        ctx.result(
          list,
          list.length
            ? renderTable(
                ['prefix', 'label', 'created', 'last used', 'revoked'],
                list.map((k) => [k.prefix, cleanLabel(k.label), k.createdAt, k.lastUsedAt ?? '-', k.revokedAt ?? '-']),
              )
            : 'no key',
        );
      }),
    );
  keys
    .command('revoke')
    .description('Revoke a key at once and for good')
    .argument('<email>')
    .argument('<key-prefix>', 'the first characters of the key, as `tariff keys list` shows them')
    .addHelpText('after', '\nExample:\n  tariff keys revoke tabacchi.rossi@example.it ttd_AbCd1234')
    .action(
      run(async (ctx, address: string, prefix: string) => {
        const revoked = await ctx.withRegistry(async (registry) =>
          registry.revokeKey((await requireAccount(registry, address)).id, prefix, OPERATOR, ctx.io.now()),
        );
        ctx.result(revoked, `revoked ${revoked.prefix}…`);
      }),
    );
}
