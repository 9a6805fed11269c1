import { readFileSync } from 'node:fs';
import pg from 'pg';
import { pgAuthenticator } from './pg-authenticate.ts';
import { errors } from '../../errors.ts';
import { refuseOuterStatement, withinTransaction } from '../store.ts';
import type { Authenticate, Dialect, Params, PoolUse, Queries, Row, Store, Transaction, TransactionOptions } from '../store.ts';

const PG_DIALECT: Dialect = {
  name: 'postgres',
  inList: (type) => `(SELECT unnest(CAST(? AS ${type}[])))`,
  jsonRows: (columns) =>
    `jsonb_to_recordset(CAST(? AS jsonb)) AS t(${Object.entries(columns)
      .map(([column, type]) => `${column} ${type}`)
      .join(', ')})`,
  forUpdate: ' FOR UPDATE',
  schema: { identity: 'INTEGER GENERATED ALWAYS AS IDENTITY PRIMARY KEY', falseFlag: 'BOOLEAN NOT NULL DEFAULT false', withoutRowid: '' },
  // The hot path's function, in a file of its own (pg-authenticate.ts calls it).
  routines: [readFileSync(new URL('./pg-authenticate.sql', import.meta.url), 'utf8')],
};

const numberedCache = new Map<string, string>();
/** The registry's SQL writes `?`; PostgreSQL numbers its placeholders. */
function numbered(sql: string): string {
  let text = numberedCache.get(sql);
  if (text === undefined) {
    let n = 0;
    numberedCache.set(sql, (text = sql.replace(/\?/g, () => `$${++n}`)));
  }
  return text;
}

const bind = (params: Params): unknown[] => params.map((value) => (value === undefined ? null : value));

function queriesOn(db: pg.Pool | pg.PoolClient): Queries {
  return {
    dialect: PG_DIALECT,
    all: async (sql, params = []) => (await db.query(numbered(sql), bind(params))).rows as Row[],
    one: async (sql, params = []) => (await db.query(numbered(sql), bind(params))).rows[0] as Row | undefined,
    run: async (sql, params = []) => (await db.query(numbered(sql), bind(params))).rowCount ?? 0,
    exec: async (script) => void (await db.query(script)),
  };
}

/**
 * The registry's store on PostgreSQL (the `pg` driver and its pool), for several proxy instances
 * sharing one database. Sessions commit without waiting for the WAL flush (the per-request
 * counters, as SQLite's NORMAL level); durable transactions turn `synchronous_commit` back on.
 */
export class PgStore implements Store {
  readonly dialect = PG_DIALECT;
  readonly authenticate: Authenticate = pgAuthenticator(this);
  private readonly queries: Queries;

  readonly pool: pg.Pool;

  private constructor(pool: pg.Pool) {
    this.pool = pool;
    this.queries = queriesOn(pool);
  }

  /** Connects; `?schema=name` in the URL isolates a registry in its own schema (created if missing). */
  static async open(url: string, options: { poolSize?: number } = {}): Promise<PgStore> {
    const parsed = new URL(url);
    const schema = parsed.searchParams.get('schema');
    parsed.searchParams.delete('schema');
    if (schema !== null && !/^[a-z_][a-z0-9_]{0,62}$/.test(schema))
      throw errors.usage(`schema ${schema} is not a plain lower-case SQL name`);
    const connectionString = parsed.toString();
    if (schema) {
      const admin = new pg.Client({ connectionString });
      await admin.connect();
      try {
        // IF NOT EXISTS still races when instances start together: the loser's duplicate is harmless.
        await admin.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`).catch((error: { code?: string }) => {
          if (error.code !== '23505' && error.code !== '42P06') throw error;
        });
      } finally {
        await admin.end();
      }
    }
    const settings = ['-c synchronous_commit=off', ...(schema ? [`-c search_path=${schema}`] : [])].join(' ');
    const pool = new pg.Pool({ connectionString, max: options.poolSize ?? 10, options: settings });
    // An idle client's error (the server restarted) must not crash the process: the pool replaces it.
    pool.on('error', () => {});
    return new PgStore(pool);
  }

  all(sql: string, params?: Params): Promise<Row[]> {
    refuseOuterStatement(this);
    return this.queries.all(sql, params);
  }

  one(sql: string, params?: Params): Promise<Row | undefined> {
    refuseOuterStatement(this);
    return this.queries.one(sql, params);
  }

  run(sql: string, params?: Params): Promise<number> {
    refuseOuterStatement(this);
    return this.queries.run(sql, params);
  }

  exec(script: string): Promise<void> {
    refuseOuterStatement(this);
    return this.queries.exec(script);
  }

  async transaction<T>(work: (tx: Transaction) => Promise<T>, options: TransactionOptions): Promise<T> {
    const client = await this.pool.connect();
    const tx: Transaction = {
      ...queriesOn(client),
      // Advisory locks until the transaction ends, taken in one order everywhere (no deadlock).
      lock: async (keys) =>
        void (await client.query(
          'SELECT count(pg_advisory_xact_lock(h)) FROM (SELECT DISTINCT hashtext(k) AS h FROM unnest($1::text[]) AS k ORDER BY 1) AS locks',
          [keys],
        )),
    };
    try {
      await client.query(options.durable ? 'BEGIN; SET LOCAL synchronous_commit = on' : 'BEGIN');
      const result = await withinTransaction(this, () => work(tx));
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      throw error;
    } finally {
      client.release();
    }
  }

  poolUse(): PoolUse {
    return { inUse: this.pool.totalCount - this.pool.idleCount, waiting: this.pool.waitingCount };
  }

  close(): Promise<void> {
    return this.pool.end();
  }
}
