import type { Command } from 'commander';
import { writeFile } from 'node:fs/promises';
import { errors } from '../../errors.ts';
import { newBackupKey } from '../../registry/backup/backup-cipher.ts';
import { checkRegistryBackup, runRegistryBackup } from '../../pipeline/run-registry-backup.ts';
import { describeCounts, runRegistryRestore } from '../../pipeline/run-registry-restore.ts';
import { wholeArgument, type Runner } from '../context.ts';
import { renderTable } from '../render-table.ts';
import { BUCKET_OPTION } from '../shared-options.ts';

/** A week of the hourly backups docs/operations.md recommends. */
const DEFAULT_KEEP = 168;

const DESTINATION = [
  '--to <folder-or-s3-uri>',
  "where backups go (default: the bucket's backups/registry/); never inside the data dir",
] as const;
const IDENTITY = ['--identity <file>', 'the age identity file that opens encrypted backups (env TARIFF_BACKUP_IDENTITY)'] as const;

function backupCommand(registry: Command, run: Runner): void {
  registry
    .command('backup')
    .description('Copy the live registry (consistent while the service writes), checked and compressed, to the bucket or --to')
    .option(...DESTINATION)
    .option(...BUCKET_OPTION)
    .option('--recipient <age1...>', 'encrypt for this age recipient; repeat for more (env TARIFF_BACKUP_RECIPIENTS)')
    .option(
      '--plaintext',
      'store the backup unencrypted (it holds every account): only where the destination is as private as the registry',
    )
    .option('--keep <n>', `backups kept in the destination, the newest (default ${DEFAULT_KEEP}: a week of hourly ones)`)
    .option('--check', 'restore the newest backup into a scratch file and compare its rows with the live registry; change nothing')
    .option(...IDENTITY)
    .option('--quiet', 'for cron: print nothing on success; failures on stderr')
    .addHelpText(
      'after',
      '\nEncrypted (age) for the recipients given, before it leaves the machine; refused without one unless --plaintext.' +
        '\n\nExamples (crontab, hourly; cron mails only failures; TARIFF_BACKUP_RECIPIENTS in the environment):\n  17 * * * *  tariff registry backup --quiet\n  tariff registry backup --check --identity /media/keys/tariff-backups.age',
    )
    .action(
      run(async (ctx, options: BackupOptions) => {
        // --keep counts backups, not releases (TARIFF_KEEP): not a setting here.
        const settings = await ctx.settings({ bucket: options.bucket, recipient: options.recipient, identity: options.identity });
        const edges = { settings, dataDir: ctx.dataDir, env: ctx.io.env, now: ctx.io.machineNow, to: options.to };
        if (options.check) {
          const check = await checkRegistryBackup(edges);
          const rows = Object.entries(check.counts).map(([table, { backup, live }]) => [table, String(backup), String(live)]);
          return ctx.result(
            check,
            `${check.record.file}: whole, integrity_check ok, taken ${check.ageSeconds} s ago\n${renderTable(['table', 'backup', 'live'], rows)}`,
          );
        }
        const keep = wholeArgument(options.keep, '--keep') ?? DEFAULT_KEEP;
        const summary = await runRegistryBackup({ ...edges, keep, plaintext: options.plaintext ?? false });
        const removed =
          summary.removed.length > 0 ? `; removed ${summary.removed.filter((key) => !key.endsWith('.json')).length} older` : '';
        const line = `registry backup: ${summary.where} (${summary.record.size} bytes; ${describeCounts(summary.record.counts)})${removed}`;
        // Said even to cron: a backup was killed before this one, and its copy of the registry was there meanwhile.
        if (summary.leftovers.length > 0) ctx.warn(leftoversRemoved(summary.leftovers));
        ctx.result(summary, options.quiet ? undefined : line);
      }),
    );
}

function restoreCommand(registry: Command, run: Runner): void {
  registry
    .command('restore')
    .description('Put a backup in place of the registry (stop the service first); the replaced one is kept beside it')
    .argument('<backup>', 'a backup file, or a backup of the destination by name (registry-<time>), or latest')
    .option('--from <folder-or-s3-uri>', "where the backups are (default: the bucket's backups/registry/)")
    .option(...BUCKET_OPTION)
    .option(
      '--force',
      'replace a registry that holds work done since the backup (it is kept beside it); on PostgreSQL, end the other sessions',
    )
    .option(...IDENTITY)
    .addHelpText(
      'after',
      '\nExamples:\n  tariff registry restore latest\n  tariff registry restore /mnt/backups/registry-2026-11-26T16-17-00-000Z.sqlite.gz',
    )
    .action(
      run(async (ctx, backup: string, options: { from?: string; bucket?: string; force?: boolean; identity?: string }) => {
        const settings = await ctx.settings({ bucket: options.bucket, identity: options.identity });
        const summary = await runRegistryRestore({
          settings,
          dataDir: ctx.dataDir,
          env: ctx.io.env,
          now: ctx.io.machineNow,
          to: options.from,
          backup,
          force: options.force ?? false,
        });
        if (summary.leftovers.length > 0) ctx.warn(leftoversRemoved(summary.leftovers));
        const kept = summary.replaced ? `; the registry it replaced is kept as ${summary.replaced}` : '';
        const { sessions, links } = summary.webAccessEnded;
        const signedOut = `; every website session ended (${sessions}) and every unused sign-in link voided (${links}): people sign in again`;
        const taken = summary.record ? ` (taken ${summary.record.createdAt})` : ' (no record beside it: its digest was not checked)';
        ctx.result(
          summary,
          `restored ${summary.backup}${taken} into ${summary.registry}: ${describeCounts(summary.counts)}; schema ${summary.schemaVersion.backup} → ${summary.schemaVersion.now}${signedOut}${kept}`,
        );
      }),
    );
}

/** What a backup or restore says of the copies of the registry that killed runs left, which it removed. */
const leftoversRemoved = (paths: string[]): string =>
  `removed what a killed backup or restore left (copies of the registry in the clear): ${paths.join(', ')}`;

type BackupOptions = {
  to?: string;
  bucket?: string;
  recipient?: string[];
  plaintext?: boolean;
  identity?: string;
  keep?: string;
  check?: boolean;
  quiet?: boolean;
};

function backupKeyCommand(registry: Command, run: Runner): void {
  registry
    .command('backup-key')
    .description('The age key that encrypts registry backups')
    .command('create')
    .description('Write a new age identity to <file> (0600, never over a file) and print its recipient, for TARIFF_BACKUP_RECIPIENTS')
    .argument('<file>', 'where the identity goes: then keep it off the machine that takes the backups')
    .addHelpText('after', '\nExample:\n  tariff registry backup-key create /media/keys/tariff-backups.age')
    .action(
      run(async (ctx, file: string) => {
        const { identity, recipient } = await newBackupKey();
        await writeFile(file, `# tariff registry backups; recipient ${recipient}\n${identity}\n`, { mode: 0o600, flag: 'wx' }).catch(
          (error: NodeJS.ErrnoException) => {
            throw errors.usage(
              `${file}: ${error.code === 'EEXIST' ? 'exists already (never overwritten)' : (error.code ?? error.message)}`,
            );
          },
        );
        ctx.result(
          { file, recipient },
          `${recipient}\n  the identity is in ${file}: keep it off this machine; set TARIFF_BACKUP_RECIPIENTS=${recipient} where backups are taken`,
        );
      }),
    );
}

export function registerRegistry(program: Command, run: Runner): void {
  const registry = program
    .command('registry')
    .description('Back up and restore the registry (accounts, keys, submissions, votes, moderation, the audit log)');
  backupCommand(registry, run);
  restoreCommand(registry, run);
  backupKeyCommand(registry, run);
}
