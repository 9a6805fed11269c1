import { TariffError } from '../errors.ts';

/**
 * A fault of the machine or of a service the product depends on, not a bug: what an operator
 * fixes (a permission, a full disk, a database that is down), named so a message can say it
 * (`machineFault` below tells one from an error; `machineFaultError` reports it in the catalogue).
 */
export interface MachineFault {
  condition:
    | 'permission_denied'
    | 'read_only'
    | 'disk_full'
    | 'quota_exceeded'
    | 'too_many_open_files'
    | 'database_full'
    | 'database_busy'
    | 'database_unreachable'
    | 'service_unreachable';
  /** The file or folder concerned, when the error names one. */
  path: string | null;
  /** What happened, in a few words ("no space left on the device (ENOSPC)"). */
  detail: string;
}

/** What an operator does about each machine fault. */
const FAULT_REMEDIES: Record<MachineFault['condition'], (fault: MachineFault, user: string) => string> = {
  permission_denied: (fault, user) =>
    `The user ${user} cannot write ${fault.path ?? 'there'}: give it that folder (chown, chmod), or run as its owner, or point --data-dir / the setting elsewhere.`,
  read_only: (fault) =>
    `${fault.path ?? 'The file system'} is on a read-only file system: remount it writable, or point --data-dir / the setting elsewhere; under systemd, ProtectSystem=strict makes every path read-only for the unit but those in ReadWritePaths= or StateDirectory= (docs/deployment.md, "systemd").`,
  disk_full: (fault) => `Free space on the disk holding ${fault.path ?? 'it'} (df -h), then run again.`,
  quota_exceeded: (fault, user) => `The disk quota of ${user} is used up where ${fault.path ?? 'it'} lies: raise it or free space.`,
  too_many_open_files: () => 'Raise the limit of open files (ulimit -n, LimitNOFILE in the service unit).',
  database_full: (fault) =>
    `The registry’s disk is full: free space on the disk holding ${fault.path ?? 'the database'} (df -h), then run again.`,
  database_busy: () => 'Another process holds the registry’s database: wait for it, or stop it.',
  database_unreachable: () =>
    'The registry (PostgreSQL) cannot be reached or is stopping: check that it runs and TARIFF_REGISTRY names it.',
  service_unreachable: () => 'A service the command depends on cannot be reached: check that it runs, and the network.',
};

/** What an operator does about a machine fault, as a hint ahead of what the failing step's own code says. */
export const faultRemedy = (fault: MachineFault, user = 'this command'): string => FAULT_REMEDIES[fault.condition](fault, user);

/** A machine fault in a few words, with the path it names: "<path>: no space left on the device (ENOSPC)". */
export const faultDetail = (fault: MachineFault): string => `${fault.path ? `${fault.path}: ` : ''}${fault.detail}`;

/** A machine fault as the catalogue reports it: what happened, where, and what to do (exit 1). */
export function machineFaultError(fault: MachineFault, user: string): TariffError {
  const where = fault.path ? `${fault.path}: ` : '';
  return new TariffError('machine_fault', `${where}${fault.detail}`, FAULT_REMEDIES[fault.condition](fault, user), 1, {
    condition: fault.condition,
  });
}

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
const POSTGRES_BUSY = /^(40P01|40001|55P03)$/;
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
    // A deadlock, a lock not granted, a serialization failure: PostgreSQL busy with another session's
    // work (a restore's, say), not a bug; the request is tried again later.
    if (POSTGRES_BUSY.test(code)) return { condition: 'database_busy', path: null, detail: `PostgreSQL: ${message || code} (${code})` };
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
