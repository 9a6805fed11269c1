import type { Command } from 'commander';
import { errors } from '../../errors.ts';
import { readKeyList } from '../../publish/current-signing.ts';
import { createSigningKey, retireSigningKey } from '../../publish/manage-signing-keys.ts';
import { inUse } from '../../release/signing-keys.ts';
import type { CommandFlags, Runner } from '../context.ts';
import { renderTable } from '../render-table.ts';
import { BUCKET_OPTION } from '../shared-options.ts';

function instantArgument(value: string | undefined, now: Date): Date {
  if (value === undefined) return now;
  const at = new Date(value);
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(at.getTime()))
    throw errors.usage(`--at ${value} is not a date or an instant (e.g. 2026-12-08 or 2026-12-08T06:00:00+01:00)`);
  return at;
}

/** `tariff signing-key …`: the keys that sign the bucket's current manifest (docs/operations.md, "Signing releases"). */
export function registerSigningKey(program: Command, run: Runner): void {
  const keys = program.command('signing-key').description("Manage the keys that sign the bucket's current manifest");
  keys
    .command('create')
    .description('Create an Ed25519 key: the private key in a 0600 file, its public key added to the bucket (keys.json)')
    .option(...BUCKET_OPTION)
    .option('--out <file>', 'where the private key goes (default <data-dir>/signing-keys/<key id>.pem); never overwritten')
    .addHelpText(
      'after',
      '\nThen set TARIFF_SIGNING_KEY to the file: the next tariff release signs with it.\n\nExample:\n  tariff signing-key create --bucket s3://tariff-releases/prod',
    )
    .action(
      run(async (ctx, options: { out?: string }) => {
        const bucket = await ctx.bucket(options);
        const { entry, file } = await ctx.asBucketWriter(bucket, 'signing-key create', (leased) =>
          createSigningKey(leased, { dataDir: ctx.dataDir, file: options.out, now: ctx.io.now() }),
        );
        ctx.result(
          { ...entry, file, bucket: bucket.description },
          `created key ${entry.keyId} in ${file} (set TARIFF_SIGNING_KEY=${file}); public key ${entry.keyId}:${entry.publicKey}`,
        );
      }),
    );
  keys
    .command('list')
    .description("List the bucket's signing keys: id, public key (as tariff sync --public-key takes it), created, retired")
    .option(...BUCKET_OPTION)
    .action(
      run(async (ctx, options: CommandFlags) => {
        const bucket = await ctx.bucket(options);
        const list = await readKeyList(bucket);
        const now = ctx.io.now();
        ctx.result(
          list,
          list.keys.length
            ? renderTable(
                ['key', 'created', 'retired', 'status'],
                list.keys.map((k) => [`${k.keyId}:${k.publicKey}`, k.created, k.retiredAt ?? '-', inUse(k, now) ? 'in use' : 'retired']),
              )
            : 'no signing key',
        );
      }),
    );
  keys
    .command('retire')
    .description('Retire a key: from --at on (default now), clients refuse the manifests it signed')
    .argument('<key-id>', 'as tariff signing-key list shows it')
    .option(...BUCKET_OPTION)
    .option('--at <instant>', 'when its signatures stop being accepted (default now)')
    .addHelpText('after', '\nExample (after a week of overlap with the new key):\n  tariff signing-key retire 3f2a9c0d41be7765')
    .action(
      run(async (ctx, keyId: string, options: { at?: string }) => {
        const bucket = await ctx.bucket(options);
        const at = instantArgument(options.at, ctx.io.now());
        const retired = await ctx.asBucketWriter(bucket, 'signing-key retire', (leased) => retireSigningKey(leased, keyId, at));
        ctx.result({ ...retired, bucket: bucket.description }, `retired ${retired.keyId} from ${retired.retiredAt}`);
      }),
    );
}
