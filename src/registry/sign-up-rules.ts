import type { Account, AccountType, SignUp, SignUpStatus } from './registry.ts';

/** A sign_ups row as both dialects return it. */
export type SignUpRow = Record<string, unknown>;

export const toSignUp = (row: SignUpRow): SignUp => ({
  id: Number(row.id),
  email: String(row.email),
  type: row.type as AccountType,
  organisation: String(row.organisation),
  rulesVersion: String(row.rules_version),
  createdAt: String(row.created_at),
  status: row.status as SignUpStatus,
  confirmedAt: (row.confirmed_at as string | null) ?? null,
  decidedAt: (row.decided_at as string | null) ?? null,
  decidedBy: (row.decided_by as string | null) ?? null,
});

/**
 * What confirming a sign-up does, decided once for both dialects: an address that has an account
 * already gets nothing new; a type the operator approves by hand waits; any other is created.
 */
export function confirmationStep(
  signUp: SignUp,
  existing: Account | null,
  approvalTypes: readonly AccountType[],
): 'existed' | 'awaiting_approval' | 'create' {
  if (existing) return 'existed';
  return approvalTypes.includes(signUp.type) ? 'awaiting_approval' : 'create';
}

/** The account columns a confirmed (or approved) sign-up writes, in INSERT order after email and type. */
export const signUpAccountValues = (signUp: SignUp) => [signUp.organisation, signUp.rulesVersion, signUp.createdAt] as const;

/** Placeholders written `?` once, numbered for PostgreSQL. */
export const numbered = (sql: string) => {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
};

/** The SQL both dialects run for sign-ups (`?` placeholders; PostgreSQL numbers them). */
export const SIGN_UP_SQL = {
  purge: "DELETE FROM sign_ups WHERE status = 'unconfirmed' AND expires_at < ?",
  insert:
    'INSERT INTO sign_ups (email, type, organisation, rules_version, token_hash, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
  usable: "SELECT 1 FROM sign_ups WHERE token_hash = ? AND status = 'unconfirmed' AND expires_at > ?",
  claim:
    "UPDATE sign_ups SET status = 'created', confirmed_at = ? WHERE token_hash = ? AND status = 'unconfirmed' AND expires_at > ? RETURNING *",
  setStatus: 'UPDATE sign_ups SET status = ? WHERE id = ? RETURNING *',
  pending: "SELECT * FROM sign_ups WHERE status = 'awaiting_approval' ORDER BY created_at, id",
  decide: "UPDATE sign_ups SET status = ?, decided_at = ?, decided_by = ? WHERE id = ? AND status = 'awaiting_approval' RETURNING *",
  insertAccount:
    'INSERT INTO accounts (email, type, submit_limit, created_at, organisation, rules_version, rules_accepted_at) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING *',
  auditLog: 'SELECT * FROM audit_log ORDER BY id DESC LIMIT ?',
} as const;
