import type { Command } from 'commander';
import { createKey } from '../../registry/create-key.ts';
import { cleanLabel } from '../../inputs/input-schemas.ts';
import { type Runner } from '../context.ts';
import { OPERATOR, requireAccount } from '../operator.ts';
import { renderTable } from '../render-table.ts';

/** `tariff keys …`: an account's API keys, for the operator. */
export function registerKeys(program: Command, run: Runner): void {
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
