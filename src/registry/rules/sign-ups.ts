import type { StatusRules } from '../../barcodes/status-rules.ts';
import { writeAudit } from './audit.ts';
import {
  DEFAULT_SUBMIT_LIMIT,
  type Account,
  type AccountType,
  type SignUp,
  type SignUpConfirmation,
  type SignUpRequest,
} from '../records.ts';
import { toAccount, toSignUp } from '../rows.ts';
import { confirmationStep } from './sign-up-rules.ts';
import { runDurably, type Store, type Transaction } from '../store.ts';

const SET_STATUS = 'UPDATE sign_ups SET status = ? WHERE id = ? RETURNING *';

/**
 * Creates the account of a confirmed (or approved) sign-up, with the organisation and the rules
 * it accepted, vetted from `vettedAt` (null: its votes wait for vetting). Two sign-ups of one
 * address confirmed at once: the lock lets one create it, the other finds it.
 */
async function createSignedUp(
  tx: Transaction,
  signUp: SignUp,
  now: Date,
  by: { actor: string; vettedAt: string | null },
): Promise<Account> {
  const existing = await tx.one('SELECT * FROM accounts WHERE email = ?', [signUp.email]);
  if (existing) return toAccount(existing);
  const account = toAccount(
    (await tx.one(
      `INSERT INTO accounts (email, type, submit_limit, created_at, organisation, rules_version, rules_accepted_at, vetted_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
      [
        signUp.email,
        signUp.type,
        DEFAULT_SUBMIT_LIMIT,
        now.toISOString(),
        signUp.organisation,
        signUp.rulesVersion,
        signUp.createdAt,
        by.vettedAt,
      ],
    ))!,
  );
  await writeAudit(tx, { actor: by.actor, action: 'account.sign_up', subject: account.email, before: null, after: account }, now);
  return account;
}

/** Self-service sign-ups: requested, confirmed by their link, decided by an administrator. Part of the Registry (registry.ts). */
export interface SignUpRegistry {
  /** Stores a sign-up request and its link's token (SHA-256), valid until `expiresAt`. */
  createSignUp(input: SignUpRequest, now: Date): Promise<void>;
  /** Whether a sign-up link can still be confirmed, without confirming it. */
  signUpUsable(tokenHash: string, now: Date): Promise<boolean>;
  /**
   * Confirms a sign-up link once, atomically: creates the account (with the organisation and the
   * rules accepted), or leaves it waiting for an administrator when its type is in
   * `approvalTypes`. Null when the link is unknown, used or expired.
   */
  confirmSignUp(tokenHash: string, approvalTypes: readonly AccountType[], now: Date): Promise<SignUpConfirmation | null>;
  /** Confirmed sign-ups waiting for an administrator, oldest first. */
  pendingSignUps(): Promise<SignUp[]>;
  /** An administrator approves (the account is created) or refuses a waiting sign-up; null when it is not waiting. */
  decideSignUp(id: number, approve: boolean, actor: string, now: Date): Promise<{ signUp: SignUp; account: Account | null } | null>;
}

/**
 * Self-service sign-up: a request with the usage rules accepted, confirmed once by its e-mail
 * link, then an account (or a wait for an administrator, by policy). Durable throughout: it
 * records who accepted which rules and when.
 */
export function signUpRules(store: Store, statusRules: StatusRules): SignUpRegistry {
  return {
    createSignUp: async (input: SignUpRequest, now: Date): Promise<void> => {
      const sql =
        'INSERT INTO sign_ups (email, type, organisation, rules_version, token_hash, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)';
      const { email, type, organisation, rulesVersion, tokenHash, expiresAt } = input;
      await runDurably(store, sql, [email, type, organisation, rulesVersion, tokenHash, now.toISOString(), expiresAt.toISOString()]);
    },

    signUpUsable: async (tokenHash: string, now: Date): Promise<boolean> =>
      Boolean(
        await store.one("SELECT 1 FROM sign_ups WHERE token_hash = ? AND status = 'unconfirmed' AND expires_at > ?", [
          tokenHash,
          now.toISOString(),
        ]),
      ),

    confirmSignUp: (tokenHash: string, approvalTypes: readonly AccountType[], now: Date): Promise<SignUpConfirmation | null> =>
      store.transaction(
        async (tx): Promise<SignUpConfirmation | null> => {
          const claimed = await tx.one(
            "UPDATE sign_ups SET status = 'created', confirmed_at = ? WHERE token_hash = ? AND status = 'unconfirmed' AND expires_at > ? RETURNING *",
            [now.toISOString(), tokenHash, now.toISOString()],
          );
          if (!claimed) return null;
          const signUp = toSignUp(claimed);
          await tx.lock([`email:${signUp.email}`]);
          const existing = await tx.one('SELECT * FROM accounts WHERE email = ?', [signUp.email]);
          const step = confirmationStep(signUp, existing ? toAccount(existing) : null, approvalTypes);
          if (step === 'existed') {
            await tx.run(SET_STATUS, ['existed', signUp.id]);
            return { outcome: 'existed', account: toAccount(existing!) };
          }
          if (step === 'awaiting_approval')
            return { outcome: 'awaiting_approval', signUp: toSignUp((await tx.one(SET_STATUS, ['awaiting_approval', signUp.id]))!) };
          // Nobody looked at this account: its votes wait the vetting days (docs/moderation.md).
          const vettedAt = statusRules.vettingDays === 0 ? now.toISOString() : null;
          return { outcome: 'created', account: await createSignedUp(tx, signUp, now, { actor: 'web (sign-up)', vettedAt }) };
        },
        { durable: true },
      ),

    pendingSignUps: async (): Promise<SignUp[]> =>
      (await store.all("SELECT * FROM sign_ups WHERE status = 'awaiting_approval' ORDER BY created_at, id")).map(toSignUp),

    decideSignUp: (id: number, approve: boolean, actor: string, now: Date): Promise<{ signUp: SignUp; account: Account | null } | null> =>
      store.transaction(
        async (tx) => {
          const row = await tx.one(
            "UPDATE sign_ups SET status = ?, decided_at = ?, decided_by = ? WHERE id = ? AND status = 'awaiting_approval' RETURNING *",
            [approve ? 'approved' : 'refused', now.toISOString(), actor, id],
          );
          if (!row) return null;
          const signUp = toSignUp(row);
          const action = approve ? 'sign_up.approve' : 'sign_up.refuse';
          await writeAudit(tx, { actor, action, subject: signUp.email, before: null, after: signUp }, now);
          if (!approve) return { signUp, account: null };
          await tx.lock([`email:${signUp.email}`]);
          // An administrator looked at it: it counts at once.
          return { signUp, account: await createSignedUp(tx, signUp, now, { actor, vettedAt: now.toISOString() }) };
        },
        { durable: true },
      ),
  };
}
