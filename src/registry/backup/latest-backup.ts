import type { Bucket } from '../../storage/bucket.ts';
import { backupRecordSchema, LATEST_BACKUP_KEY, type BackupRecord } from './backup-record.ts';

/**
 * The record of the newest registry backup in the bucket (`backups/registry/latest.json`), or null
 * when none was taken there; a record that does not parse is an error (the read fails, and says so).
 */
export async function readLatestBackup(bucket: Bucket): Promise<BackupRecord | null> {
  const bytes = await bucket.get(LATEST_BACKUP_KEY);
  return bytes ? backupRecordSchema.parse(JSON.parse(bytes.toString('utf8'))) : null;
}
