import type { Account, AccountType, AuditRecord } from './registry.ts';

/**
 * Rows both dialects return, read into the registry's shapes once. SQLite gives booleans as 0/1,
 * PostgreSQL as booleans; both give timestamps as ISO text.
 */
export const toAccount = (row: Record<string, unknown>): Account => ({
  id: Number(row.id),
  email: String(row.email),
  type: row.type as AccountType,
  blocked: Boolean(row.blocked),
  submitLimit: Number(row.submit_limit),
  createdAt: String(row.created_at),
  admin: Boolean(row.admin),
  organisation: (row.organisation as string | null) ?? null,
  rulesVersion: (row.rules_version as string | null) ?? null,
  rulesAcceptedAt: (row.rules_accepted_at as string | null) ?? null,
});

export const toAuditRecord = (row: Record<string, unknown>): AuditRecord => ({
  id: Number(row.id),
  at: String(row.at),
  actor: String(row.actor),
  action: String(row.action),
  subject: String(row.subject),
  before: row.before === null ? null : JSON.parse(String(row.before)),
  after: row.after === null ? null : JSON.parse(String(row.after)),
});
