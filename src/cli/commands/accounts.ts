import type { Command } from 'commander';
import { moderationActions } from '../../registry/moderation-actions.ts';
import { errors } from '../../errors.ts';
import { ACCOUNT_TYPES, DEFAULT_SUBMIT_LIMIT, type Account, type AccountType } from '../../registry/registry.ts';
import { wholeArgument, type Runner } from '../context.ts';
import { emailArgument, OPERATOR } from '../operator.ts';
import { renderTable } from '../render-table.ts';

const accountRow = (a: Account) => [
  a.email,
  a.type,
  a.blocked ? 'blocked' : a.vettedAt === null ? 'not vetted' : 'active',
  a.admin ? 'yes' : '',
  a.organisation ?? '',
  String(a.submitLimit),
  a.createdAt,
];

function createCommand(accounts: Command, run: Runner): void {
  accounts
    .command('create')
    .description('Create an account')
    .argument('<email>', 'the e-mail address the account signs in with')
    .requiredOption('--type <type>', `account type: ${ACCOUNT_TYPES.join(', ')}`)
    .option('--submit-limit <n>', `barcode submissions per hour (default ${DEFAULT_SUBMIT_LIMIT})`)
    .addHelpText('after', '\nExample:\n  tariff accounts create tabacchi.rossi@example.it --type User')
    .action(
      run(async (ctx, address: string, options: { type: string; submitLimit?: string }) => {
        if (!(ACCOUNT_TYPES as readonly string[]).includes(options.type))
          throw errors.usage(`--type ${options.type} is not one of ${ACCOUNT_TYPES.join(', ')}`);
        const submitLimit = wholeArgument(options.submitLimit, '--submit-limit');
        const account = await ctx.withRegistry((registry) =>
          registry.createAccount({ email: emailArgument(address), type: options.type as AccountType, submitLimit }, ctx.io.now()),
        );
        ctx.result(account, `created ${account.email} (${account.type}, ${account.submitLimit} submissions/hour)`);
      }),
    );
}

function listCommand(accounts: Command, run: Runner): void {
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
}

/** `block` and `unblock`: one command each, the same action. */
function blockCommands(accounts: Command, run: Runner): void {
  const commands = [
    { name: 'block', blocked: true, description: 'Block an account: its keys stop working at once' },
    { name: 'unblock', blocked: false, description: 'Unblock an account' },
  ];
  for (const { name, blocked, description } of commands)
    accounts
      .command(name)
      .description(description)
      .argument('<email>')
      .addHelpText('after', `\nExample:\n  tariff accounts ${name} tabacchi.rossi@example.it`)
      .action(
        run(async (ctx, address: string) => {
          const account = await ctx.withRegistry((registry) =>
            moderationActions(registry).blockAccount(emailArgument(address), blocked, OPERATOR, ctx.io.now()),
          );
          ctx.result(account, `${account.email} ${blocked ? 'blocked' : 'unblocked'}`);
        }),
      );
}

function vetCommand(accounts: Command, run: Runner): void {
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
        const account = await ctx.withRegistry((registry) => registry.vetAccount(emailArgument(address), OPERATOR, ctx.io.now()));
        ctx.result(account, `${account.email} vetted: its votes count`);
      }),
    );
}

function adminCommand(accounts: Command, run: Runner): void {
  accounts
    .command('admin')
    .description("Let an account use the website's moderation desk (or, with --remove, no longer)")
    .argument('<email>')
    .option('--remove', 'take the administrator flag away')
    .addHelpText('after', '\nExample:\n  tariff accounts admin moderazione@example.it')
    .action(
      run(async (ctx, address: string, options: { remove?: boolean }) => {
        const account = await ctx.withRegistry((registry) =>
          registry.setAdmin(emailArgument(address), !options.remove, OPERATOR, ctx.io.now()),
        );
        ctx.result(account, `${account.email} ${account.admin ? 'is an administrator' : 'is no longer an administrator'}`);
      }),
    );
}

function setLimitCommand(accounts: Command, run: Runner): void {
  accounts
    .command('set-limit')
    .description("Set an account's hourly barcode submission limit")
    .argument('<email>')
    .requiredOption('--submit <n>', 'submissions per hour')
    .addHelpText('after', '\nExample:\n  tariff accounts set-limit cassa@integrazione.example --submit 5000')
    .action(
      run(async (ctx, address: string, options: { submit: string }) => {
        const limit = wholeArgument(options.submit, '--submit')!;
        const account = await ctx.withRegistry((registry) =>
          registry.setSubmitLimit(emailArgument(address), limit, OPERATOR, ctx.io.now()),
        );
        ctx.result(account, `${account.email}: ${account.submitLimit} submissions/hour`);
      }),
    );
}

/** `tariff accounts …`: the operator's account commands. */
export function registerAccounts(program: Command, run: Runner): void {
  const accounts = program.command('accounts').description('Manage accounts in the registry (operator)');
  for (const add of [createCommand, listCommand, blockCommands, vetCommand, adminCommand, setLimitCommand]) add(accounts, run);
}
