import type { StatusRules } from '../barcodes/status-rules.ts';
import { errors } from '../errors.ts';
import { writeAudit } from './audit.ts';
import { recomputeBarcodes } from './barcode-state.ts';
import { DEFAULT_SUBMIT_LIMIT, type Account, type AccountType } from './records.ts';
import { toAccount } from './rows.ts';
import { isUniqueViolation, type Row, type Store, type Transaction } from './store.ts';

/** Accounts: created by the operator (or a confirmed sign-up), blocked, limited, made administrators; each change audited. */
export function accountRules(store: Store, statusRules: StatusRules) {
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
    async createAccount(input: { email: string; type: AccountType; submitLimit?: number }, now: Date): Promise<Account> {
      try {
        return await store.transaction(
          async (tx) =>
            toAccount(
              (await tx.one('INSERT INTO accounts (email, type, submit_limit, created_at) VALUES (?, ?, ?, ?) RETURNING *', [
                input.email,
                input.type,
                input.submitLimit ?? DEFAULT_SUBMIT_LIMIT,
                now.toISOString(),
              ]))!,
            ),
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
        const gtins = (await tx.all('SELECT gtin FROM votes WHERE account_id = ?', [row!.id])).map((vote) => String(vote.gtin));
        await recomputeBarcodes(tx, gtins, now, statusRules);
        return row;
      }),

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
