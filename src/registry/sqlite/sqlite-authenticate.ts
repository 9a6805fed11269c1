import type Database from 'better-sqlite3';
import { sameFingerprint } from '../api-key.ts';
import { CONSUME_ONE_READ, USAGE } from '../rules/counters.ts';
import {
  groupedAuthentication,
  LAST_USED_RESOLUTION_MS,
  type Authenticated,
  type AuthenticationRequest,
} from '../grouped-authentication.ts';
import { toAccount } from '../rows.ts';
import type { Authenticate } from '../store.ts';

/** What the authenticator needs of the SQLite store: its database, its statement cache, its turn. */
export interface SqliteHandle {
  db: Database.Database;
  prepare(sql: string): Database.Statement;
  exclusive<T>(work: () => T): Promise<Awaited<T>>;
}

/**
 * Authentication on SQLite, written apart from the registry's rules because every API request
 * runs it: prepared statements called directly, a group of requests in one transaction
 * (grouped-authentication.ts).
 */
export function sqliteAuthenticator(store: SqliteHandle): Authenticate {
  const principal = store.prepare(
    `SELECT k.id AS key_id, k.fingerprint, k.last_used_at, a.* FROM api_keys k JOIN accounts a ON a.id = k.account_id
     WHERE k.fingerprint = ? AND k.revoked_at IS NULL AND NOT a.blocked`,
  );
  const touch = store.prepare('UPDATE api_keys SET last_used_at = ? WHERE id = ?');
  // Own statements, not the store's shared ones: these return the value alone (pluck).
  const consume = store.db.prepare(CONSUME_ONE_READ).pluck();
  const usage = store.db.prepare(USAGE).pluck();

  const one = ({ fingerprint, now, read }: AuthenticationRequest): Authenticated => {
    const row = principal.get(fingerprint) as Record<string, unknown> | undefined;
    // The index lookup compares hashes, not keys; the final check is constant-time all the same.
    if (!row || !sameFingerprint(String(row.fingerprint), fingerprint)) return null;
    const lastUsed = row.last_used_at as string | null;
    if (!lastUsed || now.getTime() - Date.parse(lastUsed) >= LAST_USED_RESOLUTION_MS) touch.run(now.toISOString(), row.key_id);
    const account = toAccount(row);
    const keyId = Number(row.key_id);
    if (!read) return { account, keyId };
    // The first read of the day is an insert: the read limit is always at least 1.
    const consumed = consume.get(account.id, read.periodStart, read.limit) as number | undefined;
    if (consumed !== undefined) return { account, keyId, read: { allowed: true, used: consumed } };
    const used = (usage.get(account.id, 'read', read.periodStart) as number | undefined) ?? 0;
    return { account, keyId, read: { allowed: false, used } };
  };
  const batch = store.db.transaction((group: AuthenticationRequest[]) => group.map(one));
  return groupedAuthentication((group) => store.exclusive(() => batch.immediate(group)));
}
