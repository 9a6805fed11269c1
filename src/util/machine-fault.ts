import { faultDetail, faultRemedy, type MachineFault } from '../errors.ts';

type ErrorLike = { code?: unknown; errno?: unknown; path?: unknown; message?: unknown; cause?: unknown };

/** The codes that name a machine's condition: the file system's (errno), then SQLite's result codes (better-sqlite3's `code`). */
const KNOWN_CODES: Record<string, [MachineFault['condition'], string]> = {
  EACCES: ['permission_denied', 'permission denied'],
  EPERM: ['permission_denied', 'operation not permitted'],
  EROFS: ['read_only', 'the file system is read-only'],
  ENOSPC: ['disk_full', 'no space left on the device'],
  EDQUOT: ['quota_exceeded', 'the disk quota is exceeded'],
  EMFILE: ['too_many_open_files', 'too many open files'],
  ENFILE: ['too_many_open_files', 'too many open files in the system'],
  SQLITE_FULL: ['database_full', 'the database or its disk is full'],
  SQLITE_BUSY: ['database_busy', 'the database is locked by another process, past its timeout'],
  SQLITE_LOCKED: ['database_busy', 'the database is locked'],
  SQLITE_READONLY: ['read_only', 'the database is read-only'],
  SQLITE_CANTOPEN: ['permission_denied', 'the database file cannot be opened'],
};

/**
 * PostgreSQL's SQLSTATEs for a server that cannot be reached or used now (class 08 connection,
 * 57P admin shutdown, 53 insufficient resources); the driver's own words for a connection lost.
 */
const POSTGRES_UNAVAILABLE = /^(08...|57P0[1-3]|53...)$/;
const CONNECTION_LOST =
  /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error/i;
const NETWORK = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN']);

/** The machine fault an error is, looking through its causes; null for anything else (a bug). */
export function machineFault(error: unknown): MachineFault | null {
  for (let e = error as ErrorLike | undefined, depth = 0; e && depth < 5; e = e.cause as ErrorLike | undefined, depth++) {
    const code = typeof e.code === 'string' ? e.code : '';
    const path = typeof e.path === 'string' ? e.path : null;
    const message = typeof e.message === 'string' ? e.message : '';
    const known = KNOWN_CODES[code] ?? (code.startsWith('SQLITE_IOERR') ? KNOWN_CODES.SQLITE_FULL : undefined);
    if (known) return { condition: known[0], path, detail: `${known[1]} (${code})` };
    if (POSTGRES_UNAVAILABLE.test(code)) {
      const condition = code === '53100' ? 'database_full' : 'database_unreachable';
      return { condition, path: null, detail: `PostgreSQL: ${message || code} (${code})` };
    }
    if (CONNECTION_LOST.test(message)) return { condition: 'database_unreachable', path: null, detail: `PostgreSQL: ${message}` };
    // The bucket and the authority's site wrap their own network errors; one that reaches here is a service's (the registry's).
    if (NETWORK.has(code)) return { condition: 'service_unreachable', path: null, detail: `${message || 'cannot connect'} (${code})` };
  }
  return null;
}

/**
 * What went wrong, in a few words, for a step that wraps it in its own code: a fault of the
 * machine with its path and what to do about it (free space, permissions), anything else its message.
 */
export function describeFailure(error: unknown): { detail: string; remedy: string | undefined } {
  const fault = machineFault(error);
  return fault ? { detail: faultDetail(fault), remedy: faultRemedy(fault) } : { detail: (error as Error).message, remedy: undefined };
}
