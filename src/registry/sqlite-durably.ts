import type Database from 'better-sqlite3';

/**
 * Runs a transaction whose commit reaches the disk before it returns (synchronous = FULL): an
 * accepted submission survives a power cut. The per-request read counters keep the connection's
 * NORMAL level, where a power cut may forget the last increments but never corrupts the file.
 */
export function durably<T>(db: Database.Database, work: () => T): T {
  db.pragma('synchronous = FULL');
  try {
    return work();
  } finally {
    db.pragma('synchronous = NORMAL');
  }
}
