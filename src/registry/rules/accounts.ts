import { vettingWaitMs, type StatusRules } from '../../barcodes/status-rules.ts';
import { errors } from '../../errors.ts';
import { writeAudit } from './audit.ts';
import { recomputeBarcodes } from './barcode-state.ts';
import { DEFAULT_SUBMIT_LIMIT, type Account, type AccountType } from '../records.ts';
import { toAccount } from '../rows.ts';
import { isUniqueViolation, type Row, type Store, type Transaction } from '../store.ts';

/** Accounts: created, listed, found, blocked, vetted, made administrators. Part of the Registry (registry.ts). */
export interface AccountRegistry {
  /** An operator's account (`actor` says who made it: the command line by default), logged in the audit log. */
  createAccount(input: { email: string; type: AccountType; submitLimit?: number; actor?: string }, now: Date): Promise<Account>;
  listAccounts(): Promise<Account[]>;
  findAccount(email: string): Promise<Account | null>;
  findAccountById(id: number): Promise<Account | null>;
  /** Blocks or unblocks an account: its keys stop (or resume) working and its votes stop (or resume) counting. */
  setBlocked(email: string, blocked: boolean, actor: string, now: Date): Promise<Account>;
  /** Vets a self-service account now: its votes count from now on (docs/moderation.md). */
  vetAccount(email: string, actor: string, now: Date): Promise<Account>;
  /** Vets the self-service accounts that waited the vetting days unblocked; their addresses. */
  vetAccountsOfAge(now: Date): Promise<string[]>;
  /** Makes an account an administrator of the website's moderation desk, or no longer one. */
  setAdmin(email: string, admin: boolean, actor: string, now: Date): Promise<Account>;
  setSubmitLimit(email: string, limit: number, actor: string, now: Date): Promise<Account>;
}

/** Accounts: created by the operator (or a confirmed sign-up), blocked, limited, made administrators; each change audited. */
export function accountRules(store: Store, statusRules: StatusRules): AccountRegistry {
  /** Recomputes the barcodes these accounts voted on: after their votes started or stopped counting. */
  const recomputeVotesOf = async (tx: Transaction, accountIds: number[], now: Date) => {
    const rows = await tx.all(`SELECT DISTINCT gtin FROM votes WHERE account_id IN ${tx.dialect.inList('integer')}`, [accountIds]);
    await recomputeBarcodes(
      tx,
      rows.map((vote) => String(vote.gtin)),
      now,
      statusRules,
    );
  };

  /** Changes one account in a durable transaction, with the states before and after in the audit log. */
  const changeAccount = (email: string, actor: string, now: Date, action: string, change: (tx: Transaction) => Promise<Row | undefined>) =>
    store.transaction(
      async (tx) => {
        const before = await tx.one(`SELECT * FROM accounts WHERE email = ?${tx.dialect.forUpdate}`, [email]);
        if (!before) throw errors.accountNotFound(email);
        const after = toAccount((await change(tx))!);
        await writeAudit(tx, { actor, action, subject: email, before: toAccount(before), after }, now);
        return after;
      },
      { durable: true },
    );

  return {
    async createAccount(input: { email: string; type: AccountType; submitLimit?: number; actor?: string }, now: Date): Promise<Account> {
      try {
        return await store.transaction(
          async (tx) => {
            const account = toAccount(
              // The operator created it: it counts at once.
              (await tx.one('INSERT INTO accounts (email, type, submit_limit, created_at, vetted_at) VALUES (?, ?, ?, ?, ?) RETURNING *', [
                input.email,
                input.type,
                input.submitLimit ?? DEFAULT_SUBMIT_LIMIT,
                now.toISOString(),
                now.toISOString(),
              ]))!,
            );
            const actor = input.actor ?? 'operator (command line)';
            await writeAudit(tx, { actor, action: 'account.create', subject: input.email, before: null, after: account }, now);
            return account;
          },
          { durable: true },
        );
      } catch (error) {
        if (isUniqueViolation(error)) throw errors.accountExists(input.email);
        throw error;
      }
    },

    listAccounts: async (): Promise<Account[]> => (await store.all('SELECT * FROM accounts ORDER BY email')).map(toAccount),

    async findAccount(email: string): Promise<Account | null> {
      const row = await store.one('SELECT * FROM accounts WHERE email = ?', [email]);
      return row ? toAccount(row) : null;
    },

    async findAccountById(id: number): Promise<Account | null> {
      const row = await store.one('SELECT * FROM accounts WHERE id = ?', [id]);
      return row ? toAccount(row) : null;
    },

    /** Its keys stop working at once (authentication reads the flag); its votes stop counting. */
    setBlocked: (email: string, blocked: boolean, actor: string, now: Date) =>
      changeAccount(email, actor, now, blocked ? 'account.block' : 'account.unblock', async (tx) => {
        const row = await tx.one('UPDATE accounts SET blocked = ? WHERE email = ? RETURNING *', [blocked, email]);
        await recomputeVotesOf(tx, [Number(row!.id)], now);
        return row;
      }),

    /** Vets a self-service account now (its votes count from now on), whatever its age. */
    vetAccount: (email: string, actor: string, now: Date) =>
      changeAccount(email, actor, now, 'account.vet', async (tx) => {
        const row = await tx.one('UPDATE accounts SET vetted_at = COALESCE(vetted_at, ?) WHERE email = ? RETURNING *', [
          now.toISOString(),
          email,
        ]);
        await recomputeVotesOf(tx, [Number(row!.id)], now);
        return row;
      }),

    /**
     * Vets the self-service accounts that have waited the vetting days without being blocked, and
     * recomputes the barcodes they voted on: run by the service in the background. Returns their addresses.
     */
    vetAccountsOfAge: (now: Date): Promise<string[]> =>
      store.transaction(
        async (tx) => {
          // Created at least the vetting wait ago: vettedFrom(created_at) is now or past.
          const createdBefore = new Date(now.getTime() - vettingWaitMs(statusRules)).toISOString();
          const rows = await tx.all(
            'UPDATE accounts SET vetted_at = ? WHERE vetted_at IS NULL AND NOT blocked AND created_at <= ? RETURNING id, email',
            [now.toISOString(), createdBefore],
          );
          if (rows.length === 0) return [];
          await recomputeVotesOf(
            tx,
            rows.map((row) => Number(row.id)),
            now,
          );
          for (const row of rows)
            await writeAudit(
              tx,
              { actor: 'system (vetting days)', action: 'account.vet', subject: String(row.email), before: null, after: null },
              now,
            );
          return rows.map((row) => String(row.email)).sort();
        },
        { durable: true },
      ),

    setAdmin: (email: string, admin: boolean, actor: string, now: Date) =>
      changeAccount(email, actor, now, admin ? 'account.admin' : 'account.unadmin', (tx) =>
        tx.one('UPDATE accounts SET admin = ? WHERE email = ? RETURNING *', [admin, email]),
      ),

    setSubmitLimit: (email: string, limit: number, actor: string, now: Date) =>
      changeAccount(email, actor, now, 'account.set-limit', (tx) =>
        tx.one('UPDATE accounts SET submit_limit = ? WHERE email = ? RETURNING *', [limit, email]),
      ),
  };
}
