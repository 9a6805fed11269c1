import type { Authenticate, PoolUse } from './store.ts';
import type { AccountRegistry } from './rules/accounts.ts';
import type { KeyRegistry } from './rules/keys.ts';
import type { CounterRegistry } from './rules/counters.ts';
import type { SubmissionRegistry } from './rules/submissions.ts';
import type { ModerationRegistry } from './rules/barcode-moderation.ts';
import type { WebAccessRegistry } from './rules/web-access.ts';
import type { SignUpRegistry } from './rules/sign-ups.ts';
import type { AuditRegistry } from './rules/audit.ts';
import type { PurgeRegistry } from './rules/purge-rules.ts';

export * from './records.ts';

/**
 * The registry of accounts, API keys, counters, votes, sessions and the audit log. Its rules are
 * written once over a store (store.ts) of either engine, SQLite for one machine or PostgreSQL for
 * several proxy instances: every check-and-change is atomic in the database itself, never a read
 * in this process followed by a write. One interface per group of rules, each implemented in
 * its own file over the store (open-registry.ts puts them together).
 *
 * @example
 *   const registry = await openRegistry({ dataDir: './var', rules: loadRules(settings) });
 *   const principal = await registry.authenticate(fingerprintOf(key), new Date());
 */
export interface Registry
  extends
    AccountRegistry,
    KeyRegistry,
    CounterRegistry,
    SubmissionRegistry,
    ModerationRegistry,
    WebAccessRegistry,
    SignUpRegistry,
    AuditRegistry,
    PurgeRegistry {
  /**
   * The account of an active key with this fingerprint, unless the account is blocked. Records
   * the key's use and, when `read` is given, takes one unit from the account's read counter, all in
   * one transaction: a GET costs one database round trip. The store's own (store.ts).
   */
  authenticate: Authenticate;
  /** The connections in use and the work waiting for one. */
  poolUse(): PoolUse;
  close(): Promise<void>;
}
