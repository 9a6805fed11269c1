import { sameFingerprint } from '../api-key.ts';
import {
  groupedAuthentication,
  LAST_USED_RESOLUTION_MS,
  type Authenticated,
  type AuthenticationRequest,
} from '../grouped-authentication.ts';
import type pg from 'pg';
import type { Authenticate } from '../store.ts';
import { toAccount } from '../rows.ts';

/**
 * Authentication on PostgreSQL, written apart from the registry's rules because every API
 * request runs it: the requests that arrive in one turn of the event loop go to the database in
 * one call of `tariff_authenticate` (pg-authenticate.sql), set-based, in one round trip and one
 * commit for the group. An account's counter goes up by as many of its requests as fit under the
 * limit; they are the first ones in request order, as one statement each would have decided.
 * Under load this multiplies throughput; alone, a request costs what it did. A named statement:
 * parsed and planned once per connection.
 */
export function pgAuthenticator(store: { pool: pg.Pool }): Authenticate {
  return groupedAuthentication(async (group) => {
    const { rows } = await store.pool.query({
      name: 'tariff_authenticate',
      text: 'SELECT * FROM tariff_authenticate($1::text[], $2::text[], $3::text[], $4::text[], $5::integer)',
      values: [
        group.map((request) => request.fingerprint),
        group.map((request) => request.now.toISOString()),
        group.map((request) => new Date(request.now.getTime() - LAST_USED_RESOLUTION_MS).toISOString()),
        group.map((request) => request.read?.periodStart ?? null),
        // One read limit for the whole group: the service has one (READ_LIMIT).
        Math.max(...group.map((request) => request.read?.limit ?? 0)),
      ],
    });
    const found = new Map((rows as Record<string, unknown>[]).map((row) => [Number(row.ord), row]));
    // How many reads each account has taken so far in this group, in request order.
    const taken = new Map<string, number>();
    return group.map((request, i) => principalOf(request, found.get(i + 1), taken));
  });
}

function principalOf(item: AuthenticationRequest, row: Record<string, unknown> | undefined, taken: Map<string, number>): Authenticated {
  if (!row || !sameFingerprint(String(row.fingerprint), item.fingerprint)) return null;
  const account = toAccount(row.account as Record<string, unknown>);
  const keyId = Number(row.key_id);
  if (!item.read) return { account, keyId };
  const before = Number(row.used_before);
  const fitted = Number(row.used_after) - before;
  const counter = `${account.id}:${item.read.periodStart}`;
  const nth = (taken.get(counter) ?? 0) + 1;
  taken.set(counter, nth);
  return { account, keyId, read: nth <= fitted ? { allowed: true, used: before + nth } : { allowed: false, used: before + fitted } };
}
