import { existsSync, realpathSync } from 'node:fs';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve, sep } from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { Settings } from '../config/settings.ts';
import { errors } from '../errors.ts';
import {
  BACKUPS_PREFIX,
  backupName,
  backupRecordSchema,
  expiredBackups,
  LATEST_BACKUP_KEY,
  type BackupRecord,
} from '../registry/backup/backup-record.ts';
import { decryptBackup, encryptBackup, isEncrypted } from '../registry/backup/backup-cipher.ts';
import { checkPostgresDump, countsOfDump, dumpPostgres, inspectPostgres } from '../registry/backup/postgres-backup.ts';
import { inspectSqlite, snapshotSqlite, type SqliteContents } from '../registry/backup/sqlite-backup.ts';
import { isPostgresUrl, registryPath } from '../registry/registry-path.ts';
import { gzipDeterministicAsync } from '../release/gzip.ts';
import type { Bucket } from '../storage/bucket.ts';
import { openBucket } from '../storage/open-bucket.ts';
import { sha256Hex } from '../util/digests.ts';
import { writeFileAtomic } from '../util/durable-write.ts';
import { removeDeadScratch, withBackupScratch } from '../registry/backup/backup-scratch.ts';
import { acquireLock } from '../util/run-lock.ts';
import { collectGarbage } from './bucket-garbage.ts';
import { writesOfOneRun } from './bucket-writer.ts';
import { jsonOrNull } from '../util/json-or-null.ts';

export interface RegistryBackupOptions {
  settings: Settings;
  dataDir: string;
  env: NodeJS.ProcessEnv;
  now: () => Date;
  /** A folder or an s3:// URI; default the bucket the settings name. */
  to?: string;
}

/** How a backup is written: for the recipients the settings name (TARIFF_BACKUP_RECIPIENTS, --recipient), or in the clear when said. */
export interface BackupWriting {
  keep: number;
  plaintext?: boolean;
}

export interface BackupSummary {
  record: BackupRecord;
  /** Where the backup is: the destination's description and the file's key. */
  where: string;
  removed: string[];
  /** What killed backups, checks or restores left in the data dir (their copies of the registry), removed by this run. */
  leftovers: string[];
}

/** Where backups are: `--to` (or `--from`), else the bucket the settings name (its `backups/registry/`). */
export function backupDestination(options: Pick<RegistryBackupOptions, 'settings' | 'dataDir' | 'env' | 'to'>): Promise<Bucket> {
  return openBucket(options.to ?? options.settings.bucket, options);
}

/**
 * Refuses a destination on the disk the backup protects: a folder inside the data dir (the default
 * bucket, `<data-dir>/bucket`, is one), which "Losing a machine" loses with the registry. Paths are
 * compared once resolved through links, a part not made yet by its nearest existing folder's.
 */
export function refuseBesideRegistry(uri: string | undefined, dataDir: string): void {
  if (uri?.startsWith('s3://')) return;
  const folder = uri === undefined ? join(dataDir, 'bucket') : uri.startsWith('file://') ? new URL(uri).pathname : resolve(uri);
  const real = (path: string): string => {
    if (existsSync(path)) return realpathSync(path);
    const parent = dirname(path);
    return parent === path ? path : join(real(parent), basename(path));
  };
  const home = real(resolve(dataDir));
  const target = real(folder);
  if (target === home || target.startsWith(`${home}${sep}`))
    throw errors.backupBesideRegistry(uri === undefined ? `${folder} (the default bucket: no TARIFF_BUCKET)` : folder, home);
}

/** The registry the settings name: a SQLite file, or a PostgreSQL URL (backed up with pg_dump). */
export type RegistryTarget = { engine: 'sqlite'; path: string } | { engine: 'postgres'; url: string };

export function registryTarget(settings: Settings, dataDir: string): RegistryTarget {
  if (isPostgresUrl(settings.registry)) return { engine: 'postgres', url: settings.registry };
  return { engine: 'sqlite', path: registryPath({ dataDir, url: settings.registry }) };
}

/** The registry's file, which must be there to be backed up. */
function existingSqlite(target: RegistryTarget): string {
  if (target.engine !== 'sqlite') throw new Error('not a SQLite registry');
  if (!existsSync(target.path)) throw errors.registryMissing(target.path);
  return target.path;
}

/** A copy of the live registry, checked: its bytes as stored, and what it holds. */
async function takeCopy(
  target: RegistryTarget,
  scratch: string,
): Promise<{ bytes: Buffer; ext: string; contents: Omit<SqliteContents, 'integrity'> }> {
  if (target.engine === 'postgres') {
    // pg_dump reads in a snapshot its caller exported, and counts in the same: the record is its dump's.
    const contents = await dumpPostgres(target.url, scratch);
    await checkPostgresDump(scratch);
    return { bytes: await readFile(scratch), ext: 'pgdump', contents };
  }
  const source = existingSqlite(target);
  // Made empty and 0600 first: VACUUM INTO fills an empty file and keeps its mode (the copy holds every account).
  await writeFile(scratch, '', { mode: 0o600 });
  snapshotSqlite(source, scratch);
  const contents = await inspectSqlite(scratch, { digest: true });
  if (contents.integrity !== 'ok') throw errors.backupDamaged(source, `the copy does not pass integrity_check: ${contents.integrity}`);
  return { bytes: await gzipDeterministicAsync(await readFile(scratch)), ext: 'sqlite.gz', contents };
}

/**
 * A scratch file for a copy of the registry in a private folder of the data dir (backup-scratch.ts):
 * removed after (or by a stop), by the next run when this one is killed, never left for a reader of the bucket.
 */
export const withScratch = <T>(dataDir: string, work: (path: string) => Promise<T>): Promise<T> =>
  withBackupScratch(dataDir, (folder) => work(join(folder, 'registry.copy')));

/** The SQLite registry's file, when the registry is one: its restores leave their scratch beside it. */
export const sqliteFileOf = (target: RegistryTarget): string | undefined => (target.engine === 'sqlite' ? target.path : undefined);

/**
 * `tariff registry backup`: a consistent copy of the live registry (VACUUM INTO, while the
 * service writes), checked (`integrity_check`), compressed, written to the destination's
 * `backups/registry/` with its record (digest, schema version, counts), read back and compared,
 * then named the newest (`latest.json`); backups beyond `keep` are removed. One at a time per data dir.
 */
export async function runRegistryBackup(options: RegistryBackupOptions & BackupWriting): Promise<BackupSummary> {
  const { settings, dataDir } = options;
  const recipients = settings.backupRecipients;
  // Refused before anything is read: no recipient and no --plaintext, a destination beside the registry.
  if (recipients.length === 0 && !options.plaintext) throw errors.backupUnencrypted();
  refuseBesideRegistry(options.to ?? settings.bucket, dataDir);
  const target = registryTarget(settings, dataDir);
  if (target.engine === 'sqlite') existingSqlite(target);
  const destination = await backupDestination(options);
  const unlock = await acquireLock(dataDir, 'registry-backup', settings.lockStaleSeconds * 1000);
  try {
    const at = options.now();
    // Holding the lock, no other backup or restore is under way: what one left is a killed run's copy of the registry.
    const leftovers = await removeDeadScratch(dataDir, { registryFile: sqliteFileOf(target) });
    const name = backupName(at);
    const copy = await withScratch(dataDir, (scratch) => takeCopy(target, scratch));
    const { ext, contents } = copy;
    // Encrypted here, before it leaves the machine: the destination never holds a readable account.
    const encrypted = recipients.length > 0;
    const bytes = encrypted ? Buffer.from(await encryptBackup(copy.bytes, recipients)) : copy.bytes;
    const record: BackupRecord = {
      format: 1,
      engine: target.engine,
      file: `${name}.${ext}${encrypted ? '.age' : ''}`,
      encrypted,
      sha256: sha256Hex(bytes),
      size: bytes.length,
      schemaVersion: contents.schemaVersion,
      createdAt: at.toISOString(),
      counts: contents.counts,
      fingerprint: contents.fingerprint,
    };
    const key = `${BACKUPS_PREFIX}${record.file}`;
    const guarded = writesOfOneRun(destination);
    // Created once: a name is a time to the millisecond, and another backup under it is not this one.
    const owned = { private: true };
    const type = encrypted || ext === 'pgdump' ? 'application/octet-stream' : 'application/gzip';
    if ((await guarded.create(key, bytes, type, owned)) === 'exists')
      throw errors.backupDamaged(`${destination.description}${key}`, 'a backup of that name exists already; run again');
    // Read back before it counts: a backup is one only once its bytes are there whole.
    const back = await destination.get(key);
    if (!back || sha256Hex(back) !== record.sha256)
      throw errors.backupDamaged(`${destination.description}${key}`, 'what the destination holds is not what was written');
    const json = Buffer.from(`${JSON.stringify(record, null, 2)}\n`);
    await guarded.create(`${BACKUPS_PREFIX}${name}.json`, json, 'application/json', owned);
    await nameLatest(guarded, record, json);
    // The store's time, from the record it has just written: marks' ages are measured on it.
    const storeNow = (await destination.modified(`${BACKUPS_PREFIX}${name}.json`)) ?? at;
    const expired = expiredBackups(await destination.list(BACKUPS_PREFIX), options.keep);
    const garbage = await collectGarbage(guarded, {
      storeNow,
      retentionMs: settings.retentionHours * 3_600_000,
      by: 'tariff registry backup',
      keep: settings.keep,
      retire: expired.length > 0 ? [{ keys: expired, reason: `beyond --keep ${options.keep}` }] : [],
    });
    const removed = garbage.removed;
    await rememberBackup(dataDir, record, destination.description);
    return { record, where: `${destination.description}${key}`, removed, leftovers };
  } finally {
    await unlock();
  }
}

/**
 * Makes `record` the newest backup (latest.json) by compare-and-swap: never over a newer backup's
 * record that another run wrote meanwhile (a paused backup that resumes leaves the newer one named).
 */
async function nameLatest(destination: Bucket, record: BackupRecord, json: Buffer): Promise<void> {
  for (let attempt = 0; attempt < 5; attempt += 1) {
    const now = await destination.getTagged(LATEST_BACKUP_KEY);
    const named = now ? backupRecordSchema.safeParse(jsonOrNull(now.bytes)) : null;
    if (named?.success && named.data.createdAt >= record.createdAt) return;
    const written = await destination.putIfUnchanged(LATEST_BACKUP_KEY, json, 'application/json', now?.tag ?? null, { private: true });
    if (written === 'written') return;
  }
  throw errors.bucketChanged(`${destination.description}${LATEST_BACKUP_KEY}`, 'other backups kept changing it; run again');
}

/** The last backup this data dir took, with where it went: for the operator looking at the machine. */
async function rememberBackup(dataDir: string, record: BackupRecord, where: string): Promise<void> {
  await writeFileAtomic(join(dataDir, 'registry-backup.json'), `${JSON.stringify({ ...record, where }, null, 2)}\n`);
}

/** A backup's record from the destination: `latest`, a backup's name, or its file name. */
export async function readBackupRecord(destination: Bucket, name: string): Promise<BackupRecord> {
  const key =
    name === 'latest'
      ? LATEST_BACKUP_KEY
      : `${BACKUPS_PREFIX}${name.replace(/^.*\//, '').replace(/\.(sqlite\.gz|pgdump)(\.age)?$|\.json$/, '')}.json`;
  const bytes = await destination.get(key);
  if (!bytes) throw errors.backupNotFound(`${destination.description}${key}`);
  // A record cut short, or not JSON, is as damaged as one of the wrong shape: said as such, never a bug.
  const parsed = backupRecordSchema.safeParse(jsonOrNull(bytes));
  if (!parsed.success) throw errors.backupDamaged(`${destination.description}${key}`, 'not a whole backup record (cut short, or not one)');
  return parsed.data;
}

/** A backup's bytes, checked against its record's digest. */
export async function readBackupFile(destination: Bucket, record: BackupRecord): Promise<Buffer> {
  const key = `${BACKUPS_PREFIX}${record.file}`;
  const bytes = await destination.get(key);
  if (!bytes) throw errors.backupNotFound(`${destination.description}${key}`);
  if (sha256Hex(bytes) !== record.sha256 || bytes.length !== record.size)
    throw errors.backupDamaged(`${destination.description}${key}`, `its SHA-256 is not the ${record.sha256} its record names`);
  return bytes;
}

export interface BackupCheck {
  record: BackupRecord;
  ageSeconds: number;
  /** Each table's rows in the backup and in the live registry now. */
  counts: Record<string, { backup: number; live: number }>;
}

/**
 * `tariff registry backup --check`: the newest backup restored into a scratch file (its digest
 * and `integrity_check` checked) and its rows compared with the live registry's.
 */
export async function checkRegistryBackup(options: RegistryBackupOptions): Promise<BackupCheck> {
  const { settings, dataDir } = options;
  const target = registryTarget(settings, dataDir);
  const live =
    target.engine === 'postgres' ? await inspectPostgres(target.url) : await inspectSqlite(existingSqlite(target), { check: false });
  const destination = await backupDestination(options);
  const record = await readBackupRecord(destination, 'latest');
  const where = `${destination.description}${BACKUPS_PREFIX}${record.file}`;
  const bytes = await openedBackup(await readBackupFile(destination, record), where, settings);
  const restored = await withScratch(dataDir, async (scratch) => {
    if (record.engine === 'postgres') {
      if (target.engine !== 'postgres') throw errors.backupDamaged(where, 'a PostgreSQL backup, and the registry is on SQLite');
      // Restored into a scratch database, counted there, and dropped: what the dump holds, not what its record says.
      await writeFileAtomic(scratch, bytes, 0o600);
      await checkPostgresDump(scratch);
      return { integrity: 'ok', counts: await countsOfDump(target.url, scratch) };
    }
    await writeFileAtomic(scratch, gunzipSync(bytes), 0o600);
    return inspectSqlite(scratch);
  });
  if (restored.integrity !== 'ok') throw errors.backupDamaged(where, `restored, it fails integrity_check: ${restored.integrity}`);
  const counts = Object.fromEntries(
    Object.keys(restored.counts).map((table) => [table, { backup: restored.counts[table]!, live: live.counts[table] ?? 0 }]),
  );
  return { record, ageSeconds: Math.round((options.now().getTime() - Date.parse(record.createdAt)) / 1000), counts };
}

/** A backup's bytes as the registry's engine reads them: decrypted with the identity file the settings name when encrypted. */
export async function openedBackup(bytes: Buffer, where: string, settings: Settings): Promise<Buffer> {
  if (!isEncrypted(bytes)) return bytes;
  const file = settings.backupIdentity;
  if (!file) throw errors.backupIdentity(where, 'it is encrypted (age), and no identity was given to open it');
  const cannotRead = (error: NodeJS.ErrnoException) => {
    throw errors.backupIdentity(file, `the identity file cannot be read (${error.code ?? error.message})`);
  };
  // As ssh refuses a private key others can read: whoever reads it reads every backup.
  const mode = (await stat(file).catch(cannotRead)).mode & 0o777;
  if ((mode & 0o077) !== 0)
    throw errors.backupIdentity(
      file,
      `the identity file is readable by others than its owner (mode ${mode.toString(8).padStart(4, '0')}); make it private: chmod 600 ${file}`,
    );
  return Buffer.from(await decryptBackup(bytes, file, await readFile(file, 'utf8').catch(cannotRead), where));
}
