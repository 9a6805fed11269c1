import { Worker } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { sqliteAuthenticator } from './sqlite-authenticate.ts';
import { refuseOuterStatement, withinTransaction } from '../store.ts';
import type { Authenticate, Dialect, Params, PoolUse, Row, Store, Transaction, TransactionOptions } from '../store.ts';

export const SQLITE_DIALECT: Dialect = {
  name: 'sqlite',
  inList: () => '(SELECT value FROM json_each(?))',
  jsonRows: (columns) =>
    `(SELECT ${Object.keys(columns)
      .map((column) => `json_extract(value, '$.${column}') AS ${column}`)
      .join(', ')} FROM json_each(?)) AS t`,
  forUpdate: '',
  schema: { identity: 'INTEGER PRIMARY KEY', falseFlag: 'INTEGER NOT NULL DEFAULT 0', withoutRowid: ' WITHOUT ROWID' },
  routines: [],
};

const CHECKPOINT_INTERVAL_MS = 1_000;

/** better-sqlite3 binds numbers, strings, bigints, buffers and null: booleans become 0/1, arrays JSON. */
const bind = (params: Params): unknown[] =>
  params.map((value) =>
    typeof value === 'boolean' ? (value ? 1 : 0) : Array.isArray(value) ? JSON.stringify(value) : value === undefined ? null : value,
  );

/**
 * The registry's store in a SQLite file (better-sqlite3, WAL). Statements are prepared once.
 * Transactions are `BEGIN IMMEDIATE`, which SQLite serialises across processes too (the CLI and
 * several `tariff serve` on one machine share the file); within this process they run one at a
 * time, and a statement outside a transaction waits for the one open, so no statement of another
 * request ever lands inside it.
 */
export class SqliteStore implements Store {
  readonly dialect = SQLITE_DIALECT;
  private authenticator: Authenticate | null = null;
  /** Its statements are prepared at the first request, once the migrations made the tables. */
  readonly authenticate: Authenticate = (fingerprint, now, read) =>
    (this.authenticator ??= sqliteAuthenticator(this))(fingerprint, now, read);
  readonly db: Database.Database;
  private readonly path: string;
  private readonly statements = new Map<string, Database.Statement>();
  /** Transactions queued or open; while there are any, other work waits behind them. */
  private pending = 0;
  private tail: Promise<unknown> = Promise.resolve();
  private readonly direct: Transaction;
  private readonly checkpointer: Worker | null = null;
  /** Settles when the checkpoint thread is gone, whether it was stopped or failed on its own. */
  private checkpointerGone: Promise<void> = Promise.resolve();

  /**
   * `checkpointInBackground` (a long-running service): the log is checkpointed every second by a
   * thread of its own instead of by the commit that fills it, so no request pays for it; should
   * that thread stop, commits checkpoint again once the log passes about 80 MB.
   */
  constructor(path: string, options: { checkpointInBackground?: boolean } = {}) {
    try {
      this.db = new Database(path);
      this.db.pragma('journal_mode = WAL');
      // Commits are not flushed to disk unless a transaction asks to be durable (see transaction()).
      this.db.pragma('synchronous = NORMAL');
      this.db.pragma('busy_timeout = 5000');
      this.db.pragma('foreign_keys = ON');
    } catch (error) {
      throw located(error, path);
    }
    if (options.checkpointInBackground) {
      // A service reads the keys and accounts on every request: keep them in SQLite's own cache
      // (64 MB at most) rather than in the operating system's, a system call away.
      this.db.pragma('cache_size = -65536');
      this.db.pragma('wal_autocheckpoint = 20000');
      this.checkpointer = new Worker(new URL('./wal-checkpoint-worker.mjs', import.meta.url), {
        workerData: { path, intervalMs: CHECKPOINT_INTERVAL_MS },
        execArgv: [],
      });
      this.checkpointer.unref();
      const thread = this.checkpointer;
      this.checkpointerGone = new Promise((resolve) => thread.once('exit', () => resolve()));
      // A thread that failed leaves the checkpoints to the commits (see above), not a crash.
      thread.on('error', () => {});
    }
    const at = <T>(work: () => T): T => {
      try {
        return work();
      } catch (error) {
        throw located(error, path);
      }
    };
    this.direct = {
      dialect: SQLITE_DIALECT,
      all: async (sql, params = []) => at(() => this.prepare(sql).all(...bind(params)) as Row[]),
      one: async (sql, params = []) => at(() => this.prepare(sql).get(...bind(params)) as Row | undefined),
      run: async (sql, params = []) => at(() => this.prepare(sql).run(...bind(params)).changes),
      exec: async (script) => at(() => void this.db.exec(script)),
      lock: async () => {},
    };
    this.path = path;
  }

  prepare(sql: string): Database.Statement {
    let statement = this.statements.get(sql);
    if (!statement) this.statements.set(sql, (statement = this.db.prepare(sql)));
    return statement;
  }

  all(sql: string, params?: Params): Promise<Row[]> {
    return this.exclusive(() => this.direct.all(sql, params));
  }

  one(sql: string, params?: Params): Promise<Row | undefined> {
    return this.exclusive(() => this.direct.one(sql, params));
  }

  run(sql: string, params?: Params): Promise<number> {
    return this.exclusive(() => this.direct.run(sql, params));
  }

  exec(script: string): Promise<void> {
    return this.exclusive(() => this.direct.exec(script));
  }

  transaction<T>(work: (tx: Transaction) => Promise<T>, options: TransactionOptions): Promise<T> {
    this.pending++;
    const run = async () => {
      // FULL makes this commit wait for the disk (SQLite takes the level only outside a
      // transaction); the NORMAL commits of the per-request counters do not wait.
      if (options.durable) this.db.pragma('synchronous = FULL');
      try {
        this.db.exec('BEGIN IMMEDIATE');
        const result = await withinTransaction(this, () => work(this.direct));
        this.db.exec('COMMIT');
        return result;
      } catch (error) {
        if (this.db.inTransaction) this.db.exec('ROLLBACK');
        throw located(error, this.path);
      } finally {
        if (options.durable) this.db.pragma('synchronous = NORMAL');
      }
    };
    const result = this.tail.then(run).finally(() => this.pending--);
    this.tail = result.catch(() => {});
    return result;
  }

  /**
   * Runs synchronous work on the connection at once when no transaction is open or queued (the
   * hot path: no promise hop), otherwise after them.
   */
  exclusive<T>(work: () => T): Promise<Awaited<T>> {
    refuseOuterStatement(this);
    if (this.pending === 0) {
      try {
        return Promise.resolve(work()) as Promise<Awaited<T>>;
      } catch (error) {
        return Promise.reject(error);
      }
    }
    const result = this.tail.then(work);
    this.tail = result.catch(() => {});
    return result as Promise<Awaited<T>>;
  }

  /** One connection: in use while a transaction is open, the others queued behind it waiting. */
  poolUse(): PoolUse {
    return { inUse: Math.min(this.pending, 1), waiting: Math.max(0, this.pending - 1) };
  }

  async close(): Promise<void> {
    await this.tail;
    // Held while it stops: an unreferenced thread would let the process end before it closed.
    this.checkpointer?.ref();
    this.checkpointer?.postMessage('stop');
    await this.checkpointerGone;
    this.db.close();
  }
}

/**
 * A SQLite error names no file: the database's path is added to one of SQLite's own (a full disk,
 * a read-only file), so that the message says where it is and the remedy where to free space.
 */
function located(error: unknown, path: string): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && code.startsWith('SQLITE_') && !('path' in (error as object))) Object.assign(error as object, { path });
  return error;
}
