import type { AuditEntry, AuditRecord } from '../records.ts';
import { toAuditRecord } from '../rows.ts';
import type { Queries, Store } from '../store.ts';

/** Writes an audit entry with the states before and after, as JSON, in the caller's transaction. */
export async function writeAudit(db: Queries, entry: AuditEntry, now: Date): Promise<void> {
  await db.run('INSERT INTO audit_log (at, actor, action, subject, before, after) VALUES (?, ?, ?, ?, ?, ?)', [
    now.toISOString(),
    entry.actor,
    entry.action,
    entry.subject,
    JSON.stringify(entry.before ?? null),
    JSON.stringify(entry.after ?? null),
  ]);
}

/** The audit log of decisions. Part of the Registry (registry.ts). */
export interface AuditRegistry {
  audit(entry: AuditEntry, now: Date): Promise<void>;
  /** The most recent audit entries, newest first. */
  auditLog(limit: number): Promise<AuditRecord[]>;
}

/** The audit log: who changed what, and when. */
export function auditRules(store: Store): AuditRegistry {
  return {
    audit: (entry: AuditEntry, now: Date): Promise<void> => store.transaction((tx) => writeAudit(tx, entry, now), { durable: true }),

    auditLog: async (limit: number): Promise<AuditRecord[]> =>
      (await store.all('SELECT * FROM audit_log ORDER BY id DESC LIMIT ?', [limit])).map(toAuditRecord),
  };
}
