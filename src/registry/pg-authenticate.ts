import { sameFingerprint } from './api-key.ts';
import type { PgStore } from './pg-store.ts';
import type { Registry } from './registry.ts';
import { toAccount } from './rows.ts';

const LAST_USED_RESOLUTION_MS = 60_000;

/**
 * Authentication on PostgreSQL, written apart from the registry's rules because every API
 * request runs it: one statement, one round trip, for the key lookup, the last-use stamp (at most
 * once a minute) and the read's check-and-increment. `ON CONFLICT … DO UPDATE … WHERE` re-checks
 * the counter under its row lock, so concurrent instances stay exact. A named statement: parsed
 * and planned once per connection.
 */
export function pgAuthenticator(store: PgStore): Registry['authenticate'] {
  return async (fingerprint, now, read) => {
    const { rows } = await store.pool.query({
      name: 'tariff_authenticate',
      text: `WITH k AS (
         SELECT k.id AS key_id, k.fingerprint, a.* FROM api_keys k JOIN accounts a ON a.id = k.account_id
         WHERE k.fingerprint = $1 AND k.revoked_at IS NULL AND NOT a.blocked),
       touch AS (
         UPDATE api_keys SET last_used_at = $2 WHERE id = (SELECT key_id FROM k) AND (last_used_at IS NULL OR last_used_at <= $3) RETURNING 1),
       c AS (
         INSERT INTO usage_counters (account_id, counter, period_start, used)
         SELECT id, 'read', $4::text, 1 FROM k WHERE $5::boolean AND 1 <= $6::int
         ON CONFLICT (account_id, counter, period_start) DO UPDATE SET used = usage_counters.used + 1 WHERE usage_counters.used + 1 <= $6::int
         RETURNING used)
       SELECT k.*, (SELECT used FROM c) AS consumed, (SELECT count(*) FROM touch) AS touched,
         (SELECT u.used FROM usage_counters u WHERE u.account_id = k.id AND u.counter = 'read' AND u.period_start = $4) AS current
       FROM k`,
      values: [
        fingerprint,
        now.toISOString(),
        new Date(now.getTime() - LAST_USED_RESOLUTION_MS).toISOString(),
        read?.periodStart ?? '',
        Boolean(read),
        read?.limit ?? 0,
      ],
    });
    const row = rows[0] as Record<string, unknown> | undefined;
    if (!row || !sameFingerprint(String(row.fingerprint), fingerprint)) return null;
    const found = { account: toAccount(row), keyId: Number(row.key_id) };
    if (!read) return found;
    const consumed = row.consumed === null ? null : Number(row.consumed);
    return { ...found, read: consumed !== null ? { allowed: true, used: consumed } : { allowed: false, used: Number(row.current ?? 0) } };
  };
}
