import type { Account, WebSession } from '../records.ts';
import { toAccount } from '../rows.ts';
import { runDurably, type Store } from '../store.ts';
import { writeAudit } from './audit.ts';

/** What ending every website access changed: sessions ended, unused sign-in links voided. */
export interface WebAccessEnded {
  sessions: number;
  links: number;
}

/** The website's sign-in links, sessions and one-time forms. Part of the Registry (registry.ts). */
export interface WebAccessRegistry {
  /** Stores a sign-in link's token (its SHA-256) for an account, valid until `expiresAt`. */
  createSignInToken(accountId: number, tokenHash: string, expiresAt: Date, now: Date): Promise<void>;
  /** Whether a token is still usable, without using it (the page that asks to confirm). */
  signInTokenUsable(tokenHash: string, now: Date): Promise<boolean>;
  /** Uses a token once, atomically: the account it signs in, or null if unknown, used or expired. */
  consumeSignInToken(tokenHash: string, now: Date): Promise<Account | null>;
  createSession(accountId: number, idHash: string, csrfToken: string, expiresAt: Date, now: Date): Promise<void>;
  /** The session's account, unless the session expired or the account is blocked. */
  findSession(idHash: string, now: Date): Promise<WebSession | null>;
  deleteSession(idHash: string): Promise<void>;
  /** Marks a form's one-time token used in a session: true the first time, false for a resend. */
  useFormOnce(sessionHash: string, nonce: string): Promise<boolean>;
  /**
   * Ends every session of the account ("Esci da tutti i dispositivi"), with an entry in the audit
   * log (so a plain restore of an earlier backup sees work since it); returns how many.
   */
  deleteAccountSessions(accountId: number, now: Date): Promise<number>;
  /**
   * Ends every session and voids every sign-in link not used yet, of every account: what a
   * restore does, so that nothing ended or used since the backup comes back (people sign in again).
   */
  endAllWebAccess(now: Date): Promise<WebAccessEnded>;
}

/**
 * The website's sign-in links (tokens stored as SHA-256, single use) and sessions. Every change is
 * durable: a session ended ("sign out everywhere") or a link used must not come back after a
 * power cut.
 */
export function webAccessRules(store: Store): WebAccessRegistry {
  return {
    createSignInToken: async (accountId: number, tokenHash: string, expiresAt: Date, now: Date): Promise<void> =>
      void (await runDurably(store, 'INSERT INTO sign_in_tokens (token_hash, account_id, created_at, expires_at) VALUES (?, ?, ?, ?)', [
        tokenHash,
        accountId,
        now.toISOString(),
        expiresAt.toISOString(),
      ])),

    signInTokenUsable: async (tokenHash: string, now: Date): Promise<boolean> =>
      Boolean(
        await store.one('SELECT 1 FROM sign_in_tokens WHERE token_hash = ? AND used_at IS NULL AND expires_at > ?', [
          tokenHash,
          now.toISOString(),
        ]),
      ),

    /**
     * Uses a token once. A blocked account's token is used up and signs nobody in: a link sent
     * before the block must not work after an unblock either.
     */
    consumeSignInToken: (tokenHash: string, now: Date): Promise<Account | null> =>
      store.transaction(
        async (tx) => {
          const used = await tx.one(
            'UPDATE sign_in_tokens SET used_at = ? WHERE token_hash = ? AND used_at IS NULL AND expires_at > ? RETURNING account_id',
            [now.toISOString(), tokenHash, now.toISOString()],
          );
          const account = used ? await tx.one('SELECT * FROM accounts WHERE id = ? AND NOT blocked', [used.account_id]) : undefined;
          return account ? toAccount(account) : null;
        },
        { durable: true },
      ),

    createSession: async (accountId: number, idHash: string, csrfToken: string, expiresAt: Date, now: Date): Promise<void> => {
      const sql = 'INSERT INTO sessions (id_hash, account_id, csrf_token, created_at, expires_at) VALUES (?, ?, ?, ?, ?)';
      await runDurably(store, sql, [idHash, accountId, csrfToken, now.toISOString(), expiresAt.toISOString()]);
    },

    /** The session's account, unless the session expired or the account is blocked. */
    async findSession(idHash: string, now: Date): Promise<WebSession | null> {
      const row = await store.one(
        `SELECT s.csrf_token, s.expires_at, a.* FROM sessions s JOIN accounts a ON a.id = s.account_id
         WHERE s.id_hash = ? AND s.expires_at > ? AND NOT a.blocked`,
        [idHash, now.toISOString()],
      );
      return row ? { account: toAccount(row), csrfToken: String(row.csrf_token), expiresAt: String(row.expires_at) } : null;
    },

    deleteSession: async (idHash: string): Promise<void> =>
      void (await runDurably(store, 'DELETE FROM sessions WHERE id_hash = ?', [idHash])),

    /**
     * Marks a form's one-time token used in this session: true the first time, false for a
     * resend (a reload). Not durable: a mark a power cut undoes lets one resend through, nothing more.
     */
    useFormOnce: async (sessionHash: string, nonce: string): Promise<boolean> =>
      (await store.run('INSERT INTO form_uses (session_hash, nonce) VALUES (?, ?) ON CONFLICT DO NOTHING', [sessionHash, nonce])) === 1,

    deleteAccountSessions: (accountId: number, now: Date): Promise<number> =>
      store.transaction(
        async (tx) => {
          const ended = await tx.run('DELETE FROM sessions WHERE account_id = ?', [accountId]);
          const account = await tx.one('SELECT email FROM accounts WHERE id = ?', [accountId]);
          const subject = String(account?.email ?? accountId);
          await writeAudit(tx, { actor: subject, action: 'sessions.end_all', subject, before: null, after: { ended } }, now);
          return ended;
        },
        { durable: true },
      ),

    endAllWebAccess: (now: Date): Promise<WebAccessEnded> =>
      store.transaction(
        async (tx) => {
          const sessions = await tx.run('DELETE FROM sessions');
          await tx.run('DELETE FROM form_uses');
          const links = await tx.run('UPDATE sign_in_tokens SET used_at = ? WHERE used_at IS NULL', [now.toISOString()]);
          return { sessions, links };
        },
        { durable: true },
      ),
  };
}
