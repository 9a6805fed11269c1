import type { Consumption, Counter } from '../records.ts';
import type { Queries, Store } from '../store.ts';

/**
 * One statement: adds `units` to the counter of the period if the total stays within `limit`,
 * and returns the new total; nothing when it would not fit. `ON CONFLICT … WHERE` re-checks the
 * row under its lock, so concurrent processes and instances stay exact.
 */
const CONSUME = `INSERT INTO usage_counters (account_id, counter, period_start, used)
  SELECT CAST(? AS INTEGER), CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS INTEGER) WHERE CAST(? AS INTEGER) <= CAST(? AS INTEGER)
  ON CONFLICT (account_id, counter, period_start) DO UPDATE SET used = usage_counters.used + excluded.used
  WHERE usage_counters.used + excluded.used <= CAST(? AS INTEGER)
  RETURNING used`;

/**
 * CONSUME for one read (account, period, limit): a plain upsert, a third cheaper than the general
 * statement on the hot path of every download (SQLite's authenticator).
 */
export const CONSUME_ONE_READ = `INSERT INTO usage_counters (account_id, counter, period_start, used) VALUES (?, 'read', ?, 1)
  ON CONFLICT (account_id, counter, period_start) DO UPDATE SET used = usage_counters.used + 1 WHERE usage_counters.used < ?
  RETURNING used`;

export const USAGE = 'SELECT used FROM usage_counters WHERE account_id = ? AND counter = ? AND period_start = ?';

const COUNT_REQUEST = `INSERT INTO request_limits (key, period_start, used) VALUES (?, ?, 1)
  ON CONFLICT (key, period_start) DO UPDATE SET used = request_limits.used + 1 WHERE request_limits.used + 1 <= CAST(? AS INTEGER)
  RETURNING used`;

/** Takes `units` from a counter, all or nothing, on `db` (a transaction, or the store). */
export async function consumeWith(
  db: Queries,
  accountId: number,
  counter: Counter,
  periodStart: string,
  units: number,
  limit: number,
): Promise<Consumption> {
  const row = await db.one(CONSUME, [accountId, counter, periodStart, units, units, limit, limit]);
  if (row) return { allowed: true, used: Number(row.used) };
  return { allowed: false, used: Number((await db.one(USAGE, [accountId, counter, periodStart]))?.used ?? 0) };
}

/** Counters of the read and submit quotas, and of request limits. Part of the Registry (registry.ts). */
export interface CounterRegistry {
  /** Adds `units` to a counter for the period if the total stays within `limit`; all or nothing. */
  consume(accountId: number, counter: Counter, periodStart: string, units: number, limit: number): Promise<Consumption>;
  usage(accountId: number, counter: Counter, periodStart: string): Promise<number>;
  /** A generic counter for request limits (sign-in requests per address and per client). */
  countRequest(key: string, periodStart: string, limit: number): Promise<Consumption>;
}

/**
 * The usage counters (reads per day, submissions per hour) and the request limits (sign-in and
 * sign-up requests per address and per client). Not durable: a power cut may forget the last
 * increments, which costs nothing but a few extra requests allowed.
 */
export function counterRules(store: Store): CounterRegistry {
  return {
    consume: (accountId: number, counter: Counter, periodStart: string, units: number, limit: number) =>
      consumeWith(store, accountId, counter, periodStart, units, limit),

    usage: async (accountId: number, counter: Counter, periodStart: string): Promise<number> =>
      Number((await store.one(USAGE, [accountId, counter, periodStart]))?.used ?? 0),

    async countRequest(key: string, periodStart: string, limit: number): Promise<Consumption> {
      const row = await store.one(COUNT_REQUEST, [key, periodStart, limit]);
      if (row) return { allowed: true, used: Number(row.used) };
      const current = await store.one('SELECT used FROM request_limits WHERE key = ? AND period_start = ?', [key, periodStart]);
      return { allowed: false, used: Number(current?.used ?? 0) };
    },
  };
}
