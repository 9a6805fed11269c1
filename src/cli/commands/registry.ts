import type { Command } from 'commander';
import { checkRegistryBackup, runRegistryBackup } from '../../pipeline/run-registry-backup.ts';
import { describeCounts, runRegistryRestore } from '../../pipeline/run-registry-restore.ts';
import { wholeArgument, type Runner } from '../context.ts';
import { renderTable } from '../render-table.ts';
import { BUCKET_OPTION } from '../shared-options.ts';

/** A week of the hourly backups docs/operations.md recommends. */
const DEFAULT_KEEP = 168;

const DESTINATION = ['--to <folder-or-s3-uri>', "where backups go (default: the bucket's backups/registry/)"] as const;

function backupCommand(registry: Command, run: Runner): void {
  registry
    .command('backup')
    .description('Copy the live registry (consistent while the service writes), checked and compressed, to the bucket or --to')
    .option(...DESTINATION)
    .option(...BUCKET_OPTION)
    .option('--keep <n>', `backups kept in the destination, the newest (default ${DEFAULT_KEEP}: a week of hourly ones)`)
    .option('--check', 'restore the newest backup into a scratch file and compare its rows with the live registry; change nothing')
    .option('--quiet', 'for cron: print nothing on success; failures on stderr')
    .addHelpText(
      'after',
      '\nExamples (crontab, hourly; cron mails only failures):\n  17 * * * *  tariff registry backup --quiet\n  tariff registry backup --check',
    )
    .action(
      run(async (ctx, options: { to?: string; bucket?: string; keep?: string; check?: boolean; quiet?: boolean }) => {
        // Only --bucket is a setting here: --keep counts backups, not releases (TARIFF_KEEP).
        const settings = await ctx.settings({ bucket: options.bucket });
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
        const summary = await runRegistryBackup({ ...edges, keep });
        const removed =
          summary.removed.length > 0 ? `; removed ${summary.removed.filter((key) => !key.endsWith('.json')).length} older` : '';
        const line = `registry backup: ${summary.where} (${summary.record.size} bytes; ${describeCounts(summary.record.counts)})${removed}`;
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
    .option('--force', 'replace a registry that holds work done since the backup (it is kept beside it)')
    .addHelpText(
      'after',
      '\nExamples:\n  tariff registry restore latest\n  tariff registry restore /mnt/backups/registry-2026-11-26T16-17-00-000Z.sqlite.gz',
    )
    .action(
      run(async (ctx, backup: string, options: { from?: string; bucket?: string; force?: boolean }) => {
        const settings = await ctx.settings({ bucket: options.bucket });
        const summary = await runRegistryRestore({
          settings,
          dataDir: ctx.dataDir,
          env: ctx.io.env,
          now: ctx.io.machineNow,
          to: options.from,
          backup,
          force: options.force ?? false,
        });
        const kept = summary.replaced ? `; the registry it replaced is kept as ${summary.replaced}` : '';
        const taken = summary.record ? ` (taken ${summary.record.createdAt})` : ' (no record beside it: its digest was not checked)';
        ctx.result(
          summary,
          `restored ${summary.backup}${taken} into ${summary.registry}: ${describeCounts(summary.counts)}; schema ${summary.schemaVersion.backup} → ${summary.schemaVersion.now}${kept}`,
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
}
