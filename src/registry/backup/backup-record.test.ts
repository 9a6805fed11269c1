import { describe, expect, it } from 'vitest';
import { backupName, expiredBackups, recordKeyOf } from './backup-record.ts';

describe('backup records', () => {
  it('names a backup by its time, sortable as text and safe as a key', () => {
    expect(backupName(new Date('2026-11-26T16:20:00.123Z'))).toBe('registry-2026-11-26T16-20-00-123Z');
    const names = ['2026-11-26T09:00:00Z', '2026-11-26T10:00:00Z', '2026-12-01T00:00:00Z'].map((at) => backupName(new Date(at)));
    expect([...names].sort()).toEqual(names);
  });

  it('keeps the newest backups, removing each older one with its record', () => {
    const keys = ['09', '10', '11'].flatMap((hour) => [
      `backups/registry/registry-2026-11-26T${hour}-00-00-000Z.sqlite.gz`,
      `backups/registry/registry-2026-11-26T${hour}-00-00-000Z.json`,
    ]);
    expect(expiredBackups([...keys, 'backups/registry/latest.json'], 2)).toEqual([
      'backups/registry/registry-2026-11-26T09-00-00-000Z.sqlite.gz',
      'backups/registry/registry-2026-11-26T09-00-00-000Z.json',
    ]);
    expect(expiredBackups(keys, 5)).toEqual([]);
    expect(recordKeyOf('backups/registry/registry-x.pgdump')).toBe('backups/registry/registry-x.json');
  });
});
