import type { Store } from '../store.ts';

/** How long expired rows are kept after their period or expiry, for an operator looking into the last days. */
export const PURGE_GRACE_MS = 2 * 86_400_000;

/** One kind of expired row: the statement deleting at most `limit` of them (`?` placeholders: cutoff, limit). */
export interface PurgeRule {
  name: 'usage_counters' | 'request_limits' | 'sign_in_tokens' | 'sessions' | 'key_forms' | 'sign_ups';
  sql: string;
}

/**
 * Rows nothing reads once expired: counters and request limits of past periods, sign-in tokens
 * and sessions past their expiry, the one-time key-form marks of sessions that no longer exist,
 * and sign-ups never confirmed (confirmed and decided ones stay: they record who accepted what).
 * Each statement deletes a bounded batch (row values in a subquery: SQLite and PostgreSQL alike),
 * so a purge never holds the registry for long.
 */
export const PURGE_RULES: PurgeRule[] = [
  {
    name: 'usage_counters',
    sql: 'DELETE FROM usage_counters WHERE (account_id, counter, period_start) IN (SELECT account_id, counter, period_start FROM usage_counters WHERE period_start < ? LIMIT ?)',
  },
  {
    name: 'request_limits',
    sql: 'DELETE FROM request_limits WHERE (key, period_start) IN (SELECT key, period_start FROM request_limits WHERE period_start < ? LIMIT ?)',
  },
  {
    name: 'sign_in_tokens',
    sql: 'DELETE FROM sign_in_tokens WHERE token_hash IN (SELECT token_hash FROM sign_in_tokens WHERE expires_at < ? LIMIT ?)',
  },
  { name: 'sessions', sql: 'DELETE FROM sessions WHERE id_hash IN (SELECT id_hash FROM sessions WHERE expires_at < ? LIMIT ?)' },
  {
    name: 'sign_ups',
    sql: "DELETE FROM sign_ups WHERE id IN (SELECT id FROM sign_ups WHERE status = 'unconfirmed' AND expires_at < ? LIMIT ?)",
  },
  {
    name: 'key_forms',
    sql: 'DELETE FROM form_uses WHERE (session_hash, nonce) IN (SELECT session_hash, nonce FROM form_uses WHERE session_hash NOT IN (SELECT id_hash FROM sessions WHERE expires_at >= ?) LIMIT ?)',
  },
];

/** What a purge removed, per kind. */
export type PurgeCounts = Record<PurgeRule['name'], number>;

/** The cutoff for `now`: rows that ended before it go. */
export const purgeCutoff = (now: Date) => new Date(now.getTime() - PURGE_GRACE_MS).toISOString();

/** The expired rows, deleted a batch at a time. Part of the Registry (registry.ts). */
export interface PurgeRegistry {
  /** Deletes up to `batch` expired rows of each kind (purge-rules.ts); returns how many went. */
  purgeExpired(now: Date, batch: number): Promise<PurgeCounts>;
}

/**
 * Deletes up to `batch` expired rows of each kind. Not durable: what a power cut brings back is
 * deleted again by the next purge.
 */
export function purgeRules(store: Store): PurgeRegistry {
  return {
    async purgeExpired(now: Date, batch: number): Promise<PurgeCounts> {
      const counts = {} as PurgeCounts;
      for (const rule of PURGE_RULES)
        counts[rule.name] = await store.run(rule.sql, [rule.name === 'key_forms' ? now.toISOString() : purgeCutoff(now), batch]);
      return counts;
    },
  };
}
