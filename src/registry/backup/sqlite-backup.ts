import Database from 'better-sqlite3';
import { COUNTED_TABLES } from './backup-record.ts';
import { workDigest } from './work-digest.ts';

/** What a SQLite registry file holds, as a backup record and a restore report name it. */
export interface SqliteContents {
  /** `PRAGMA integrity_check`'s answer: "ok", or what is wrong. */
  integrity: string;
  schemaVersion: number;
  counts: Record<string, number>;
  fingerprint: string;
}

/**
 * A consistent copy of a live registry in `dest` (which must not exist): `VACUUM INTO` reads in
 * one transaction, a snapshot of the last commit, while the service goes on writing (WAL); the
 * copy is compact and holds no log of its own. Waits for a writer's lock as the service does.
 */
export function snapshotSqlite(path: string, dest: string): void {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    db.prepare('VACUUM INTO ?').run(dest);
  } finally {
    db.close();
  }
}

/**
 * Opens a registry file read-only and says what it holds (a file that is no SQLite database throws
 * SQLITE_NOTADB); its content digest (every row read) only when asked, else `fingerprint` is ''.
 */
export async function inspectSqlite(path: string, { check = true, digest = false } = {}): Promise<SqliteContents> {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    const integrity = check ? (db.pragma('integrity_check', { simple: true }) as string) : 'not checked';
    // One read transaction: the counts and the rows digested are one moment's.
    db.exec('BEGIN');
    const tables = new Set(
      (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map((t) => t.name),
    );
    const counts: Record<string, number> = {};
    // Table names from a fixed list, never from input.
    for (const table of COUNTED_TABLES)
      counts[table] = tables.has(table) ? (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n : 0;
    const schemaVersion = tables.has('schema_migrations')
      ? ((db.prepare('SELECT max(version) AS v FROM schema_migrations').get() as { v: number | null }).v ?? 0)
      : 0;
    try {
      const fingerprint = !digest
        ? ''
        : await workDigest(async (table, order) => {
            if (!tables.has(table)) return null;
            const statement = db.prepare(`SELECT * FROM ${table} ORDER BY ${order}`).raw(true);
            return { columns: statement.columns().map((column) => column.name), rows: statement.iterate() as Iterable<unknown[]> };
          });
      return { integrity, schemaVersion, counts, fingerprint };
    } finally {
      db.exec('COMMIT');
    }
  } finally {
    db.close();
  }
}
