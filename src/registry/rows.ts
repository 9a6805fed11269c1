import { identityKeys } from '../barcodes/organisation-identity.ts';
import type { StoredVote } from '../barcodes/plan-batch.ts';
import type { AdminDecision, BarcodeStatus, Match } from '../barcodes/status-rules.ts';
import type { BarcodeKind } from '../dataset/model.ts';
import { canonicalGtin } from '../gs1/gtin.ts';
import type { Account, AccountType, ApiKeyRecord, AuditRecord, BarcodeSummary, SignUp, SignUpStatus } from './records.ts';
import type { Row } from './store.ts';

/**
 * Rows of both engines read into the registry's shapes, once. SQLite gives booleans as 0/1 and
 * PostgreSQL as booleans, PostgreSQL gives counts as text: every field goes through Number,
 * Boolean or String. Timestamps are ISO text on both.
 */
const text = (value: unknown): string | null => (value === null || value === undefined ? null : String(value));

/** Who an account or a sign-up is: the fields both carry. */
const identity = (row: Row) => ({ id: Number(row.id), email: String(row.email), type: row.type as AccountType });

export const toAccount = (row: Row): Account => ({
  ...identity(row),
  blocked: Boolean(row.blocked),
  submitLimit: Number(row.submit_limit),
  createdAt: String(row.created_at),
  admin: Boolean(row.admin),
  organisation: text(row.organisation),
  rulesVersion: text(row.rules_version),
  rulesAcceptedAt: text(row.rules_accepted_at),
  vettedAt: text(row.vetted_at),
});

export const toKey = (row: Row): ApiKeyRecord => ({
  id: Number(row.id),
  accountId: Number(row.account_id),
  prefix: String(row.prefix),
  label: String(row.label),
  createdAt: String(row.created_at),
  lastUsedAt: text(row.last_used_at),
  revokedAt: text(row.revoked_at),
});

export const toAuditRecord = (row: Row): AuditRecord => ({
  id: Number(row.id),
  at: String(row.at),
  actor: String(row.actor),
  action: String(row.action),
  subject: String(row.subject),
  before: row.before === null ? null : JSON.parse(String(row.before)),
  after: row.after === null ? null : JSON.parse(String(row.after)),
});

export const toSignUp = (row: Row): SignUp => ({
  ...identity(row),
  organisation: String(row.organisation),
  rulesVersion: String(row.rules_version),
  createdAt: String(row.created_at),
  status: row.status as SignUpStatus,
  confirmedAt: text(row.confirmed_at),
  decidedAt: text(row.decided_at),
  decidedBy: text(row.decided_by),
});

/** The match columns (`adm_code`, `kind`, `units`) of a barcode row, or null when it has none. */
export const matchOf = (row: Row): Match | null =>
  row.adm_code === null || row.adm_code === undefined
    ? null
    : { admCode: Number(row.adm_code), kind: row.kind as BarcodeKind, units: Number(row.units) };

export const adminOf = (row: Row): AdminDecision =>
  row.admin_decision === 'revoked'
    ? { decision: 'revoked' }
    : row.admin_decision === 'approved'
      ? { decision: 'approved', match: matchOf(row)! }
      : null;

export const toSummary = (row: Row): BarcodeSummary => ({
  gtin14: String(row.gtin),
  barcode: canonicalGtin(String(row.gtin)),
  status: row.status as BarcodeStatus,
  match: matchOf(row),
  adminDecision: (text(row.admin_decision) as BarcodeSummary['adminDecision']) ?? null,
  votes: Number(row.votes ?? 0),
  updatedAt: String(row.updated_at),
});

/** A vote row as the status rules take it; `identitiesOf` gives an account's organisation keys (computed once per account). */
/** An account's organisation keys from its row, each account's computed once (a batch reads thousands of its votes). */
export function identityCache(): (row: Row) => readonly string[] {
  const known = new Map<number, readonly string[]>();
  return (row) => {
    const id = Number(row.account_id);
    let keys = known.get(id);
    if (!keys)
      known.set(id, (keys = identityKeys({ email: String(row.email), organisation: (row.organisation as string | null) ?? null })));
    return keys;
  };
}

export const toStoredVote = (row: Row, identitiesOf: (row: Row) => readonly string[]): StoredVote => ({
  accountId: Number(row.account_id),
  admCode: Number(row.adm_code),
  kind: row.kind as BarcodeKind,
  units: Number(row.units),
  accountType: row.type as AccountType,
  identities: identitiesOf(row),
  counted: Boolean(row.counted),
});
