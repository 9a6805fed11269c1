import { AsyncLocalStorage } from 'node:async_hooks';
import type { Consumption, Principal } from './records.ts';

/** A row as a driver returns it: column name to value. */
export type Row = Record<string, unknown>;

/**
 * A statement's parameters, written `?` in the SQL. Booleans, arrays (for `dialect.inList`) and
 * null are turned into what each driver binds; everything else goes as is.
 */
export type Params = readonly unknown[];

/**
 * What differs between SQLite and PostgreSQL in the registry's SQL, written once per dialect. The
 * rest of the SQL is the common subset: `?` placeholders, `ON CONFLICT … DO UPDATE`, `RETURNING`,
 * `CAST(? AS INTEGER)`, booleans read with `NOT x`.
 */
export interface Dialect {
  name: 'sqlite' | 'postgres';
  /** A subquery of the values of one array parameter: `gtin IN ${d.inList('text')}`. */
  inList(type: 'text' | 'integer'): string;
  /**
   * The rows of one parameter holding a JSON array of objects, as a FROM item with these columns:
   * bulk writes in one statement (`INSERT … SELECT … FROM ${d.jsonRows({ gtin: 'text' })}`).
   */
  jsonRows(columns: Record<string, 'text' | 'integer'>): string;
  /** Row locks where the engine has them (PostgreSQL); SQLite's write transactions lock the file. */
  forUpdate: string;
  /** The column declarations the schema needs that the two engines write differently. */
  schema: { identity: string; falseFlag: string; withoutRowid: string };
  /** Routines of the engine (CREATE OR REPLACE), applied after the migrations whenever the registry opens. */
  routines: readonly string[];
}

/** Statements on one connection (or, outside a transaction, on any). */
export interface Queries {
  readonly dialect: Dialect;
  all(sql: string, params?: Params): Promise<Row[]>;
  /** The first row, or undefined. */
  one(sql: string, params?: Params): Promise<Row | undefined>;
  /** Runs a statement; returns how many rows it changed. */
  run(sql: string, params?: Params): Promise<number>;
  /** Runs a script of several statements without parameters (the schema). */
  exec(script: string): Promise<void>;
}

/** Inside a transaction: statements, and locks held until it ends. */
export interface Transaction extends Queries {
  /**
   * Serialises transactions that touch the same things across processes, in one order everywhere
   * (no deadlock). PostgreSQL takes advisory locks; on SQLite a write transaction already holds
   * the whole file.
   */
  lock(keys: readonly string[]): Promise<void>;
}

export interface TransactionOptions {
  /**
   * Whether its commit must reach the disk before it returns (survive a power cut). Every
   * deliberate change is durable; per-request counters are not (docs/deployment.md).
   */
  durable: boolean;
}

/**
 * The hot path (every API request): the account of an active key with this fingerprint, unless
 * blocked; the key's use recorded; with `read`, one read taken under the limit; all in one
 * transaction. A capability of the port with one implementation per engine beside its store
 * (sqlite-authenticate.ts, pg-authenticate.ts + pg-authenticate.sql): `registry.authenticate`.
 */
export type Authenticate = (
  fingerprint: string,
  now: Date,
  read?: { periodStart: string; limit: number },
) => Promise<(Principal & { read?: Consumption }) | null>;

/** How busy the database connections are: in use, and work waiting for one (the service's /metrics). */
export interface PoolUse {
  inUse: number;
  waiting: number;
}

/**
 * The registry's narrow port to a database: statements, and transactions that declare whether
 * they must be durable. One implementation per dialect (sqlite-store.ts, pg-store.ts); the rules
 * above it are written once.
 *
 * @example
 *   await store.transaction(async (tx) => tx.run('UPDATE accounts SET blocked = ? WHERE id = ?', [true, 7]), { durable: true });
 */
export interface Store extends Queries {
  transaction<T>(work: (tx: Transaction) => Promise<T>, options: TransactionOptions): Promise<T>;
  readonly authenticate: Authenticate;
  poolUse(): PoolUse;
  close(): Promise<void>;
}

/** The store whose transaction the running code is inside, if any. */
const insideTransactionOf = new AsyncLocalStorage<Queries>();

/** Runs a transaction's work marked as inside `store`'s transaction (for refuseOuterStatement). */
export function withinTransaction<T>(store: Queries, work: () => Promise<T>): Promise<T> {
  return insideTransactionOf.run(store, work);
}

/**
 * Refuses a statement sent to the store itself from inside one of its transactions: on SQLite it
 * would wait for the transaction that waits for it (a deadlock), on PostgreSQL it would run on
 * another connection, outside the transaction, unseen by its locks. The work must use its `tx`.
 */
export function refuseOuterStatement(store: Queries): void {
  if (insideTransactionOf.getStore() === store)
    throw new Error('a statement was sent to the store inside one of its transactions: use the transaction given to the work (tx)');
}

/** Whether a driver error is a unique constraint violation (SQLite's code or PostgreSQL's SQLSTATE). */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: string }).code;
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === '23505';
}

/** One statement in a durable transaction of its own; returns how many rows it changed. */
export function runDurably(store: Store, sql: string, params: Params): Promise<number> {
  return store.transaction((tx) => tx.run(sql, params), { durable: true });
}
