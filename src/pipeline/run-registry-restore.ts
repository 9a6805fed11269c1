import { existsSync } from 'node:fs';
import { chmod, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { loadRules } from '../barcodes/load-rules.ts';
import { errors } from '../errors.ts';
import Database from 'better-sqlite3';
import { encryptBackup } from '../registry/backup/backup-cipher.ts';
import { BACKUP_FILE_END, backupRecordSchema, holdsWork, timeInName, type BackupRecord } from '../registry/backup/backup-record.ts';
import { inspectSqlite, snapshotSqlite } from '../registry/backup/sqlite-backup.ts';
import { SCHEMA_VERSION } from '../registry/schema.ts';
import { gzipDeterministicAsync } from '../release/gzip.ts';
import { jsonOrNull } from '../util/json-or-null.ts';
import { openPgRegistry, openSqliteRegistry } from '../registry/open-registry.ts';
import type { Registry } from '../registry/registry.ts';
import type { WebAccessEnded } from '../registry/rules/web-access.ts';
import {
  checkPostgresDump,
  dumpPostgres,
  endOtherSessions,
  inspectPostgres,
  otherSessions,
  restorePostgres,
} from '../registry/backup/postgres-backup.ts';
import { sha256Hex } from '../util/digests.ts';
import { syncFolder, temporaryBeside, withTemporary, writeFileDurable } from '../util/durable-write.ts';
import { acquireLock } from '../util/run-lock.ts';
import {
  backupDestination,
  openedBackup,
  readBackupFile,
  readBackupRecord,
  registryTarget,
  sqliteFileOf,
  withScratch,
  type RegistryBackupOptions,
} from './run-registry-backup.ts';
import { removeDeadScratch } from '../registry/backup/backup-scratch.ts';

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
  /** Every website session ended and every unused sign-in link voided: nothing ended since the backup comes back. */
  webAccessEnded: WebAccessEnded;
  /** What killed backups or restores left in the data dir (their copies of the registry), removed by this run. */
  leftovers: string[];
}

/** The three files of a SQLite database in WAL mode: a restore moves them together, never the main file alone. */
const WAL_FILES = ['', '-wal', '-shm'];

/**
 * A backup's bytes and record: a local file (its record `<name>.json` beside it, when there), or
 * a backup of the destination by name (`latest`, or `registry-<time>`), checked against its record.
 */
async function backupBytes(options: RegistryBackupOptions, backup: string): Promise<{ bytes: Buffer; record: BackupRecord | null }> {
  if (existsSync(backup)) {
    const stored = await readFile(backup);
    const recordPath = backup.replace(BACKUP_FILE_END, '.json');
    if (recordPath === backup || !existsSync(recordPath))
      return { bytes: await openedBackup(stored, backup, options.settings), record: null };
    const parsed = backupRecordSchema.safeParse(jsonOrNull(await readFile(recordPath)));
    if (!parsed.success) throw errors.backupDamaged(recordPath, 'not a whole backup record (cut short, or not one)');
    if (sha256Hex(stored) !== parsed.data.sha256)
      throw errors.backupDamaged(backup, `its SHA-256 is not the ${parsed.data.sha256} its record names`);
    return { bytes: await openedBackup(stored, backup, options.settings), record: parsed.data };
  }
  const destination = await backupDestination(options);
  const record = await readBackupRecord(destination, backup);
  const where = `${destination.description}backups/registry/${record.file}`;
  return { bytes: await openedBackup(await readBackupFile(destination, record), where, options.settings), record };
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
  const engine = record?.engine ?? (/\.pgdump(\.age)?$/.test(options.backup) ? 'postgres' : 'sqlite');
  if (engine !== registry.engine)
    throw errors.backupDamaged(options.backup, `a ${engine} backup, and the registry is on ${registry.engine}`);
  if (record && record.schemaVersion > SCHEMA_VERSION) throw errors.backupNewerSchema(options.backup, record.schemaVersion, SCHEMA_VERSION);
  const unlock = await acquireLock(dataDir, 'registry-backup', settings.lockStaleSeconds * 1000);
  try {
    const leftovers = await removeDeadScratch(dataDir, { registryFile: sqliteFileOf(registry) });
    const summary =
      registry.engine === 'postgres'
        ? await withScratch(dataDir, (scratch) => restoreOnPostgres(options, registry.url, scratch, bytes, record))
        : // Beside the registry, on its file system: it is renamed into place.
          await withTemporary(temporaryBeside(registry.path), (scratch) => restoreOnSqlite(options, registry.path, scratch, bytes, record));
    return { ...summary, leftovers };
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
): Promise<Omit<RestoreSummary, 'leftovers'>> {
  let database: Buffer;
  try {
    database = gunzipSync(bytes);
  } catch (error) {
    throw errors.backupDamaged(options.backup, `it does not unpack (${(error as Error).message})`);
  }
  await writeFileDurable(scratch, database, 0o600);
  const restored = await inspectSqlite(scratch, { digest: false });
  if (restored.integrity !== 'ok') throw errors.backupDamaged(options.backup, `it fails integrity_check: ${restored.integrity}`);
  if (restored.schemaVersion > SCHEMA_VERSION) throw errors.backupNewerSchema(options.backup, restored.schemaVersion, SCHEMA_VERSION);

  let replaced: string | null = null;
  // Migrated and its web access ended before it is put in place: from its first moment there, no
  // session the backup held (ended since, maybe) opens a page, and no link it held unused works.
  const webAccessEnded = await settled(await openSqliteRegistry(scratch, { rules: loadRules(options.settings) }), options.now());
  for (const suffix of ['-wal', '-shm']) await rm(`${scratch}${suffix}`, { force: true });
  if (existsSync(target)) {
    refuseSqliteInUse(target);
    // Judged by content: every row people's actions wrote (a vote changed in place changes no count).
    // Digested once each, and only when the answer matters (a forced restore replaces whatever it holds).
    const now = await inspectSqlite(target, { check: false, digest: !options.force });
    if (holdsWork(now.counts) && !options.force) {
      if (now.fingerprint !== (await inspectSqlite(scratch, { check: false, digest: true })).fingerprint)
        throw errors.registryChanged(
          target,
          `${describeCounts(now.counts)} now, ${describeCounts(restored.counts)} in the backup; their rows differ`,
        );
    }
    replaced = await keepReplacedSqlite(options, target);
  }
  await rename(scratch, target);
  await chmod(target, 0o600);
  await syncFolder(dirname(target));
  if (replaced) replaced = await sealReplacedSqlite(options, replaced);
  const after = await inspectSqlite(target, { check: false });
  return {
    backup: record?.file ?? options.backup,
    record,
    registry: target,
    replaced,
    schemaVersion: { backup: restored.schemaVersion, now: after.schemaVersion },
    counts: after.counts,
    webAccessEnded,
  };
}

/**
 * A restored registry made ready to serve: this version's migrations (applied as `registry` was
 * opened), every session ended and every unused sign-in link voided; then closed.
 */
async function settled(registry: Registry, now: Date): Promise<WebAccessEnded> {
  try {
    return await registry.endAllWebAccess(now);
  } finally {
    await registry.close();
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
  options: RestoreOptions,
  url: string,
  scratch: string,
  bytes: Buffer,
  record: BackupRecord | null,
): Promise<Omit<RestoreSummary, 'leftovers'>> {
  // Never the URL's credentials in a message or an answer.
  const named = url.replace(/\/\/[^@/]*@/, '//');
  await writeFileDurable(scratch, bytes, 0o600);
  await checkPostgresDump(scratch);
  // Other sessions (the service's pools) would fight the restore for its locks: refused, or ended with --force.
  const sessions = await otherSessions(url);
  if (sessions > 0 && !options.force) throw errors.registryInUse(named, `${sessions} other session(s) connected to its database`);
  const now = await inspectPostgres(url, { digest: true });
  let replaced: string | null = null;
  if (holdsWork(now.counts) && now.fingerprint !== record?.fingerprint) {
    if (!options.force) throw errors.registryChanged(named, `${describeCounts(now.counts)} now; their rows differ from the backup's`);
    replaced = await keepReplacedPostgres(options, url);
  }
  if (sessions > 0) await endOtherSessions(url);
  await restorePostgres(url, scratch);
  const webAccessEnded = await settled(await openPgRegistry(url, { rules: loadRules(options.settings), poolSize: 1 }), options.now());
  const after = await inspectPostgres(url);
  return {
    backup: record?.file ?? options.backup,
    record,
    registry: named,
    replaced,
    schemaVersion: { backup: record?.schemaVersion ?? after.schemaVersion, now: after.schemaVersion },
    counts: after.counts,
    webAccessEnded,
  };
}

/**
 * Refuses to replace a SQLite registry another process has open (the service, its workers, a
 * command): switching it out of WAL needs every other connection closed, so the attempt is the
 * proof, and it is undone at once. A restore under a running service would leave it writing into
 * the replaced file, and what it answered after would be lost.
 */
function refuseSqliteInUse(path: string): void {
  const db = new Database(path, { fileMustExist: true, timeout: 0 });
  try {
    const mode = db.pragma('journal_mode = DELETE', { simple: true });
    if (mode !== 'delete') throw errors.registryInUse(path, `its journal stays ${String(mode)}`);
    db.pragma('journal_mode = WAL');
  } catch (error) {
    if ((error as { code?: string }).code === 'SQLITE_BUSY')
      throw errors.registryInUse(path, 'another process has it open: the service, one of its workers, or a command');
    throw error;
  } finally {
    db.close();
  }
}

/** The registry a restore replaces, moved aside (`<file>.replaced-<time>`, with its log files): never removed before the new one is in. */
async function keepReplacedSqlite(options: RestoreOptions, target: string): Promise<string> {
  const replaced = `${target}.replaced-${timeInName(options.now())}`;
  for (const suffix of WAL_FILES) if (existsSync(`${target}${suffix}`)) await rename(`${target}${suffix}`, `${replaced}${suffix}`);
  return replaced;
}

/**
 * Once the restored registry is in: the replaced one encrypted like a backup when the settings name
 * recipients (`<file>.replaced-<time>.sqlite.gz.age`, 0600), and its plain files removed; else kept as moved.
 */
async function sealReplacedSqlite(options: RestoreOptions, replaced: string): Promise<string> {
  const recipients = options.settings.backupRecipients;
  if (recipients.length === 0) return replaced;
  return withScratch(options.dataDir, async (copy) => {
    await writeFile(copy, '', { mode: 0o600 });
    snapshotSqlite(replaced, copy);
    const plainFiles = WAL_FILES.map((suffix) => `${replaced}${suffix}`);
    return sealAside(await gzipDeterministicAsync(await readFile(copy)), recipients, `${replaced}.sqlite.gz.age`, plainFiles);
  });
}

/** The PostgreSQL registry a forced restore replaces, dumped into the data dir first: encrypted like a backup when recipients are named. */
async function keepReplacedPostgres(options: RestoreOptions, url: string): Promise<string> {
  const replaced = join(options.dataDir, `registry-replaced-${timeInName(options.now())}.pgdump`);
  await dumpPostgres(url, replaced);
  const recipients = options.settings.backupRecipients;
  if (recipients.length === 0) return replaced;
  return sealAside(await readFile(replaced), recipients, `${replaced}.age`, [replaced]);
}

/** `bytes` encrypted for the recipients into `sealed` (0600, durable), then the plain files removed: they are never the only copy. */
async function sealAside(bytes: Uint8Array, recipients: string[], sealed: string, plainFiles: string[]): Promise<string> {
  await writeFileDurable(sealed, await encryptBackup(bytes, recipients), 0o600);
  for (const file of plainFiles) await rm(file, { force: true });
  return sealed;
}
