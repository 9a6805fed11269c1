import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, readFile, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { loadRules } from '../barcodes/load-rules.ts';
import { errors } from '../errors.ts';
import { backupRecordSchema, type BackupRecord } from '../registry/backup/backup-record.ts';
import { inspectSqlite } from '../registry/backup/sqlite-backup.ts';
import { openPgRegistry, openSqliteRegistry } from '../registry/open-registry.ts';
import { checkPostgresDump, dumpPostgres, inspectPostgres, restorePostgres } from '../registry/backup/postgres-backup.ts';
import { sha256Hex } from '../util/digests.ts';
import { syncFolder, writeFileDurable } from '../util/durable-write.ts';
import { onStop } from '../util/orderly-stop.ts';
import { acquireLock } from '../util/run-lock.ts';
import { backupDestination, readBackupFile, readBackupRecord, registryTarget, type RegistryBackupOptions } from './run-registry-backup.ts';

export interface RestoreSummary {
  /** The backup restored: its record when one was found (a file given alone may have none). */
  backup: string;
  record: BackupRecord | null;
  registry: string;
  /** Where the registry it replaced was kept, if there was one. */
  replaced: string | null;
  schemaVersion: { backup: number; now: number };
  counts: Record<string, number>;
}

/** The three files of a SQLite database in WAL mode: a restore moves them together, never the main file alone. */
const WAL_FILES = ['', '-wal', '-shm'];

/**
 * A backup's bytes and record: a local file (its record `<name>.json` beside it, when there), or
 * a backup of the destination by name (`latest`, or `registry-<time>`), checked against its record.
 */
async function backupBytes(options: RegistryBackupOptions, backup: string): Promise<{ bytes: Buffer; record: BackupRecord | null }> {
  if (existsSync(backup)) {
    const bytes = await readFile(backup);
    const recordPath = backup.replace(/\.(sqlite\.gz|pgdump)$/, '.json');
    if (recordPath === backup || !existsSync(recordPath)) return { bytes, record: null };
    const record = backupRecordSchema.parse(JSON.parse(await readFile(recordPath, 'utf8')));
    if (sha256Hex(bytes) !== record.sha256) throw errors.backupDamaged(backup, `its SHA-256 is not the ${record.sha256} its record names`);
    return { bytes, record };
  }
  const destination = await backupDestination(options);
  const record = await readBackupRecord(destination, backup);
  return { bytes: await readBackupFile(destination, record), record };
}

/**
 * `tariff registry restore`: a backup put in place of the registry the settings name, with the
 * service stopped. The backup is checked (digest, `integrity_check`) before anything is touched;
 * a registry that holds work done since the backup is not overwritten unless forced, and one
 * replaced is kept beside it (`<file>.replaced-<time>`, with its log files); the migrations of
 * this version are applied; what it holds is counted.
 */
export async function runRegistryRestore(options: RegistryBackupOptions & { backup: string; force: boolean }): Promise<RestoreSummary> {
  const { settings, dataDir } = options;
  const registry = registryTarget(settings, dataDir);
  const { bytes, record } = await backupBytes(options, options.backup);
  const engine = record?.engine ?? (options.backup.endsWith('.pgdump') ? 'postgres' : 'sqlite');
  if (engine !== registry.engine)
    throw errors.backupDamaged(options.backup, `a ${engine} backup, and the registry is on ${registry.engine}`);
  if (registry.engine === 'postgres') return restoreOnPostgres(options, registry.url, bytes, record);
  const target = registry.path;
  const unlock = await acquireLock(dataDir, 'registry-backup', settings.lockStaleSeconds * 1000);
  const scratch = join(dirname(target), `.${basename(target)}.restore-${randomBytes(6).toString('hex')}.tmp`);
  const done = onStop({ what: `${scratch} removed`, undo: () => rm(scratch, { force: true }) });
  try {
    let database: Buffer;
    try {
      database = gunzipSync(bytes);
    } catch (error) {
      throw errors.backupDamaged(options.backup, `it does not unpack (${(error as Error).message})`);
    }
    await writeFileDurable(scratch, database, 0o600);
    const restored = inspectSqlite(scratch);
    if (restored.integrity !== 'ok') throw errors.backupDamaged(options.backup, `it fails integrity_check: ${restored.integrity}`);

    let replaced: string | null = null;
    if (existsSync(target)) {
      const now = inspectSqlite(target, { check: false });
      const holdsWork = Object.entries(now.counts).some(([table, rows]) => table !== 'usage_counters' && rows > 0);
      const changed = now.fingerprint !== (record?.fingerprint ?? restored.fingerprint);
      if (holdsWork && changed && !options.force)
        throw errors.registryChanged(target, `${describeCounts(now.counts)} now, ${describeCounts(restored.counts)} in the backup`);
      replaced = `${target}.replaced-${options.now().toISOString().replace(/[:.]/g, '-')}`;
      for (const suffix of WAL_FILES) if (existsSync(`${target}${suffix}`)) await rename(`${target}${suffix}`, `${replaced}${suffix}`);
    }
    await rename(scratch, target);
    await chmod(target, 0o600);
    await syncFolder(dirname(target));
    // This version's migrations, as the service would apply them at its start.
    const registry = await openSqliteRegistry(target, { rules: loadRules(settings) });
    await registry.close();
    const after = inspectSqlite(target, { check: false });
    return {
      backup: record?.file ?? options.backup,
      record,
      registry: target,
      replaced,
      schemaVersion: { backup: restored.schemaVersion, now: after.schemaVersion },
      counts: after.counts,
    };
  } finally {
    await rm(scratch, { force: true });
    done();
    await unlock();
  }
}

/** "3 accounts, 4 keys, 10 submissions, 7 votes, 12 log entries". */
export function describeCounts(counts: Record<string, number>): string {
  const label: Record<string, string> = {
    accounts: 'accounts',
    api_keys: 'keys',
    barcodes: 'submissions',
    votes: 'votes',
    audit_log: 'log entries',
  };
  return Object.entries(label)
    .map(([table, name]) => `${counts[table] ?? 0} ${name}`)
    .join(', ');
}

/**
 * The same on PostgreSQL: the dump checked (its table of contents), the registry's work since the
 * backup refused unless forced (then dumped beside the data dir first: `registry-replaced-<time>.pgdump`),
 * pg_restore over it in one transaction, this version's migrations, the rows counted.
 */
async function restoreOnPostgres(
  options: RegistryBackupOptions & { backup: string; force: boolean },
  url: string,
  bytes: Buffer,
  record: BackupRecord | null,
): Promise<RestoreSummary> {
  const { settings, dataDir } = options;
  const unlock = await acquireLock(dataDir, 'registry-backup', settings.lockStaleSeconds * 1000);
  const scratch = join(dataDir, `.registry-restore.${randomBytes(6).toString('hex')}.tmp`);
  const done = onStop({ what: `${scratch} removed`, undo: () => rm(scratch, { force: true }) });
  try {
    await writeFileDurable(scratch, bytes, 0o600);
    await checkPostgresDump(scratch);
    const now = await inspectPostgres(url);
    const holdsWork = Object.entries(now.counts).some(([table, rows]) => table !== 'usage_counters' && rows > 0);
    let replaced: string | null = null;
    if (holdsWork && now.fingerprint !== record?.fingerprint) {
      if (!options.force) throw errors.registryChanged(url.replace(/\/\/[^@/]*@/, '//'), `${describeCounts(now.counts)} now`);
      replaced = join(dataDir, `registry-replaced-${options.now().toISOString().replace(/[:.]/g, '-')}.pgdump`);
      await dumpPostgres(url, replaced);
    }
    await restorePostgres(url, scratch);
    const opened = await openPgRegistry(url, { rules: loadRules(settings), poolSize: 1 });
    await opened.close();
    const after = await inspectPostgres(url);
    return {
      backup: record?.file ?? options.backup,
      record,
      registry: url.replace(/\/\/[^@/]*@/, '//'),
      replaced,
      schemaVersion: { backup: record?.schemaVersion ?? after.schemaVersion, now: after.schemaVersion },
      counts: after.counts,
    };
  } finally {
    await rm(scratch, { force: true });
    done();
    await unlock();
  }
}
