import { errors } from '../../errors.ts';
import { writeAudit } from './audit.ts';
import { keyMatchingPrefix } from './key-rules.ts';
import { MAX_ACTIVE_KEYS, type ApiKeyRecord } from '../records.ts';
import { toKey } from '../rows.ts';
import type { Store } from '../store.ts';

/** API keys: stored by fingerprint, listed, revoked. Part of the Registry (registry.ts). */
export interface KeyRegistry {
  /** Stores a new key's fingerprint; refuses a fourth active key (error code `too_many_keys`). */
  /** A key added (`actor` says by whom: the command line by default), logged in the audit log by its prefix and label. */
  addKey(accountId: number, key: { fingerprint: string; prefix: string; label: string }, now: Date, actor?: string): Promise<ApiKeyRecord>;
  listKeys(accountId: number, options?: { includeRevoked?: boolean }): Promise<ApiKeyRecord[]>;
  /** Revokes the active key whose prefix starts with `prefix`; refuses an ambiguous prefix. */
  revokeKey(accountId: number, prefix: string, actor: string, now: Date): Promise<ApiKeyRecord>;
}

/** API keys: at most three active per account, stored as a fingerprint and the first characters; revocation is immediate. */
export function keyRules(store: Store): KeyRegistry {
  return {
    addKey(
      accountId: number,
      key: { fingerprint: string; prefix: string; label: string },
      now: Date,
      actor = 'operator (command line)',
    ): Promise<ApiKeyRecord> {
      return store.transaction(
        async (tx) => {
          // Locking the account's row serialises key creation per account across instances.
          const account = await tx.one(`SELECT email FROM accounts WHERE id = ?${tx.dialect.forUpdate}`, [accountId]);
          const active = await tx.one('SELECT count(*) AS n FROM api_keys WHERE account_id = ? AND revoked_at IS NULL', [accountId]);
          if (Number(active?.n) >= MAX_ACTIVE_KEYS)
            throw errors.tooManyKeys(String(account?.email ?? `account ${accountId}`), MAX_ACTIVE_KEYS);
          const row = await tx.one(
            'INSERT INTO api_keys (account_id, fingerprint, prefix, label, created_at) VALUES (?, ?, ?, ?, ?) RETURNING *',
            [accountId, key.fingerprint, key.prefix, key.label, now.toISOString()],
          );
          // Its prefix and label, as the account's pages show them: never the key, nor its fingerprint.
          const after = { prefix: key.prefix, label: key.label };
          await writeAudit(tx, { actor, action: 'key.create', subject: String(account?.email ?? accountId), before: null, after }, now);
          return toKey(row!);
        },
        { durable: true },
      );
    },

    async listKeys(accountId: number, options: { includeRevoked?: boolean } = {}): Promise<ApiKeyRecord[]> {
      const active = options.includeRevoked ? '' : ' AND revoked_at IS NULL';
      return (await store.all(`SELECT * FROM api_keys WHERE account_id = ?${active} ORDER BY created_at, id`, [accountId])).map(toKey);
    },

    revokeKey(accountId: number, prefix: string, actor: string, now: Date): Promise<ApiKeyRecord> {
      return store.transaction(
        async (tx) => {
          const account = await tx.one(`SELECT email FROM accounts WHERE id = ?${tx.dialect.forUpdate}`, [accountId]);
          const email = String(account?.email ?? `account ${accountId}`);
          const active = (await tx.all('SELECT * FROM api_keys WHERE account_id = ? AND revoked_at IS NULL', [accountId])).map(toKey);
          const match = keyMatchingPrefix(active, prefix, email);
          const revoked = toKey(
            (await tx.one('UPDATE api_keys SET revoked_at = ? WHERE id = ? RETURNING *', [now.toISOString(), match.id]))!,
          );
          await writeAudit(tx, { actor, action: 'key.revoke', subject: email, before: match, after: revoked }, now);
          return revoked;
        },
        // A revocation that a power cut undid would let the key work again.
        { durable: true },
      );
    },
  };
}
