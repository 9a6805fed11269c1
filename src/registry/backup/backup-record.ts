import * as z from 'zod';

/**
 * Where a bucket keeps the registry's backups: `<name>.sqlite.gz` or `<name>.pgdump`, `.age` after
 * either when encrypted (backup-cipher.ts), each with `<name>.json`.
 */
export const BACKUPS_PREFIX = 'backups/registry/';

/** The record of the newest backup, for the service's gauge and for `restore latest`. */
export const LATEST_BACKUP_KEY = `${BACKUPS_PREFIX}latest.json`;

/** The registry's tables, counted in every record; the first five are what a restore reports. */
export const COUNTED_TABLES = [
  'accounts',
  'api_keys',
  'barcodes',
  'votes',
  'audit_log',
  'blocked_contributors',
  'sign_ups',
  'sessions',
  'usage_counters',
] as const;

/**
 * What a backup says of itself, written beside it as `<name>.json`: the file and its digest (a
 * restore checks the bytes against it), the engine and schema version it holds, when it was
 * taken, and the rows of each table with the registry's fingerprint then (a restore refuses to
 * overwrite a registry that changed since, unless forced).
 */
export const backupRecordSchema = z.object({
  format: z.literal(1),
  engine: z.enum(['sqlite', 'postgres']),
  /** The backup file's name, beside this record. */
  file: z.string().regex(/^registry-[0-9TZ-]+\.(sqlite\.gz|pgdump)(\.age)?$/),
  /** Encrypted in the age format for the recipients the backup named (absent in records of older versions: false). */
  encrypted: z.boolean().default(false),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  size: z.number().int().nonnegative(),
  /** The newest migration the registry had applied. */
  schemaVersion: z.number().int().nonnegative(),
  createdAt: z.iso.datetime(),
  counts: z.record(z.string(), z.number().int().nonnegative()),
  fingerprint: z.string(),
});
export type BackupRecord = z.infer<typeof backupRecordSchema>;

/** A time as a name may carry it, sortable as text and safe as a key or file name: `2026-11-26T16-20-00-123Z`. */
export const timeInName = (at: Date): string => at.toISOString().replace(/[:.]/g, '-');

/** A backup's name from its time: `registry-2026-11-26T16-20-00-123Z`. */
export function backupName(at: Date): string {
  return `registry-${timeInName(at)}`;
}

/** The record's key for a backup file's key (`…/registry-….sqlite.gz` → `…/registry-….json`). */
export function recordKeyOf(fileKey: string): string {
  return fileKey.replace(BACKUP_FILE_END, '.json');
}

/** How a backup file's name ends: its engine's extension, and `.age` when encrypted. */
export const BACKUP_FILE_END = /\.(sqlite\.gz|pgdump)(\.age)?$/;

/**
 * The backups a retention of `keep` removes, given every key under BACKUPS_PREFIX: all but the
 * newest `keep` backups (by name, which is by time), each with its record.
 */
export function expiredBackups(keys: string[], keep: number): string[] {
  const files = keys.filter((key) => /\/registry-[^/]+\.(sqlite\.gz|pgdump)(\.age)?$/.test(key)).sort();
  const expired = files.slice(0, Math.max(0, files.length - keep));
  return expired.flatMap((key) => [key, recordKeyOf(key)]).filter((key, i, all) => all.indexOf(key) === i);
}

/** The table of the day's request counters: changed in place by every request, not people's work. */
const DAY_COUNTERS = 'usage_counters';

/** Whether a registry holds anything people did (an account, a key, a submission …): one a restore must not overwrite unasked. */
export function holdsWork(counts: Record<string, number>): boolean {
  return Object.entries(counts).some(([table, rows]) => table !== DAY_COUNTERS && rows > 0);
}
