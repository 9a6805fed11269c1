import { existsSync } from 'node:fs';
import { chmod, readFile, rename } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { loadRules } from '../barcodes/load-rules.ts';
import { errors } from '../errors.ts';
import { backupRecordSchema, holdsWork, timeInName, type BackupRecord } from '../registry/backup/backup-record.ts';
import { inspectSqlite } from '../registry/backup/sqlite-backup.ts';
import { openPgRegistry, openSqliteRegistry } from '../registry/open-registry.ts';
import { checkPostgresDump, dumpPostgres, inspectPostgres, restorePostgres } from '../registry/backup/postgres-backup.ts';
import { sha256Hex } from '../util/digests.ts';
import { syncFolder, temporaryBeside, withTemporary, writeFileDurable } from '../util/durable-write.ts';
import { acquireLock } from '../util/run-lock.ts';
import { backupDestination, readBackupFile, readBackupRecord, registryTarget, type RegistryBackupOptions } from './run-registry-backup.ts';

type RestoreOptions = RegistryBackupOptions & { backup: string; force: boolean };

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
export async function runRegistryRestore(options: RestoreOptions): Promise<RestoreSummary> {
  const { settings, dataDir } = options;
  const registry = registryTarget(settings, dataDir);
  const { bytes, record } = await backupBytes(options, options.backup);
  const engine = record?.engine ?? (options.backup.endsWith('.pgdump') ? 'postgres' : 'sqlite');
  if (engine !== registry.engine)
    throw errors.backupDamaged(options.backup, `a ${engine} backup, and the registry is on ${registry.engine}`);
  const unlock = await acquireLock(dataDir, 'registry-backup', settings.lockStaleSeconds * 1000);
  try {
    return registry.engine === 'postgres'
      ? await withTemporary(temporaryBeside(join(dataDir, 'registry-restore')), (scratch) =>
          restoreOnPostgres(options, registry.url, scratch, bytes, record),
        )
      : await withTemporary(temporaryBeside(registry.path), (scratch) => restoreOnSqlite(options, registry.path, scratch, bytes, record));
  } finally {
    await unlock();
  }
}

/** The registry file replaced by the backup unpacked into `scratch` beside it, then renamed into place. */
async function restoreOnSqlite(
  options: RestoreOptions,
  target: string,
  scratch: string,
  bytes: Buffer,
  record: BackupRecord | null,
): Promise<RestoreSummary> {
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
    if (holdsWork(now.counts) && now.fingerprint !== (record?.fingerprint ?? restored.fingerprint) && !options.force)
      throw errors.registryChanged(target, `${describeCounts(now.counts)} now, ${describeCounts(restored.counts)} in the backup`);
    replaced = `${target}.replaced-${timeInName(options.now())}`;
    for (const suffix of WAL_FILES) if (existsSync(`${target}${suffix}`)) await rename(`${target}${suffix}`, `${replaced}${suffix}`);
  }
  await rename(scratch, target);
  await chmod(target, 0o600);
  await syncFolder(dirname(target));
  // This version's migrations, as the service would apply them at its start.
  const registry = await openSqliteRegistry(target, { rules: loadRules(options.settings) });
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
  options: RestoreOptions,
  url: string,
  scratch: string,
  bytes: Buffer,
  record: BackupRecord | null,
): Promise<RestoreSummary> {
  // Never the URL's credentials in a message or an answer.
  const named = url.replace(/\/\/[^@/]*@/, '//');
  await writeFileDurable(scratch, bytes, 0o600);
  await checkPostgresDump(scratch);
  const now = await inspectPostgres(url);
  let replaced: string | null = null;
  if (holdsWork(now.counts) && now.fingerprint !== record?.fingerprint) {
    if (!options.force) throw errors.registryChanged(named, `${describeCounts(now.counts)} now`);
    replaced = join(options.dataDir, `registry-replaced-${timeInName(options.now())}.pgdump`);
    await dumpPostgres(url, replaced);
  }
  await restorePostgres(url, scratch);
  const opened = await openPgRegistry(url, { rules: loadRules(options.settings), poolSize: 1 });
  await opened.close();
  const after = await inspectPostgres(url);
  return {
    backup: record?.file ?? options.backup,
    record,
    registry: named,
    replaced,
    schemaVersion: { backup: record?.schemaVersion ?? after.schemaVersion, now: after.schemaVersion },
    counts: after.counts,
  };
}
