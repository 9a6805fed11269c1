import Database from 'better-sqlite3';
import { errors } from '../errors.ts';
import { keyMatchingPrefix } from './key-rules.ts';
import { PURGE_RULES, purgeCutoff, type PurgeCounts } from './purge-rules.ts';
import { DEFAULT_RULES, type BarcodeStatus, type Match, type StatusRules } from '../barcodes/status-rules.ts';
import type { ItemCheck } from '../barcodes/validate-item.ts';
import type { Barcode } from '../dataset/model.ts';
import {
  DEFAULT_SUBMIT_LIMIT,
  MAX_ACTIVE_KEYS,
  type Account,
  type AccountType,
  type ApiKeyRecord,
  type AuditEntry,
  type BarcodeSummary,
  type BarcodeVote,
  type Consumption,
  type Counter,
  type AuditRecord,
  type Principal,
  type Registry,
  type SignUp,
  type SignUpConfirmation,
  type SignUpRequest,
  type SubmissionRecord,
  type SubmitOutcome,
  type WebSession,
} from './registry.ts';
import { SqliteBarcodes } from './sqlite-barcodes.ts';
import { durably } from './sqlite-durably.ts';
import { SQLITE_MIGRATIONS } from './sqlite-migrations.ts';
import { sameFingerprint } from './api-key.ts';
import { toAccount as accountOf, toAuditRecord } from './rows.ts';
import { confirmationStep, SIGN_UP_SQL, signUpAccountValues, toSignUp } from './sign-up-rules.ts';

const toAccount = (row: AccountRow): Account => accountOf(row as unknown as Record<string, unknown>);

interface AccountRow {
  id: number;
  email: string;
  type: AccountType;
  blocked: number;
  submit_limit: number;
  created_at: string;
  admin: number;
  organisation: string | null;
  rules_version: string | null;
  rules_accepted_at: string | null;
}

interface KeyRow {
  id: number;
  account_id: number;
  prefix: string;
  label: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

const toKey = (row: KeyRow): ApiKeyRecord => ({
  id: row.id,
  accountId: row.account_id,
  prefix: row.prefix,
  label: row.label,
  createdAt: row.created_at,
  lastUsedAt: row.last_used_at,
  revokedAt: row.revoked_at,
});

interface PendingAuthentication {
  fingerprint: string;
  now: Date;
  read?: { periodStart: string; limit: number };
  resolve: (value: (Principal & { read?: Consumption }) | null) => void;
  reject: (error: unknown) => void;
}

/** Last use is recorded at most once a minute per key, so the hot path rarely writes for it. */
const LAST_USED_RESOLUTION_MS = 60_000;

/**
 * The registry in a SQLite file (better-sqlite3, WAL). Statements are prepared once. Every
 * check-and-change runs in one statement or one IMMEDIATE transaction, which SQLite serialises
 * across processes too (the CLI and several `tariff serve` on one machine share the file).
 */
export class SqliteRegistry implements Registry {
  private readonly db: Database.Database;
  private readonly statements;
  private readonly authenticateBatch: Database.Transaction<
    (batch: PendingAuthentication[]) => ((Principal & { read?: Consumption }) | null)[]
  >;
  private pending: PendingAuthentication[] = [];
  private readonly barcodes: SqliteBarcodes;

  constructor(path: string) {
    this.db = new Database(path);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.pragma('busy_timeout = 5000');
    this.db.pragma('foreign_keys = ON');
    migrate(this.db);
    const db = this.db;
    this.statements = {
      insertAccount: db.prepare('INSERT INTO accounts (email, type, submit_limit, created_at) VALUES (?, ?, ?, ?) RETURNING *'),
      accountByEmail: db.prepare('SELECT * FROM accounts WHERE email = ?'),
      accounts: db.prepare('SELECT * FROM accounts ORDER BY email'),
      setBlocked: db.prepare('UPDATE accounts SET blocked = ? WHERE email = ? RETURNING *'),
      setLimit: db.prepare('UPDATE accounts SET submit_limit = ? WHERE email = ? RETURNING *'),
      setAdmin: db.prepare('UPDATE accounts SET admin = ? WHERE email = ? RETURNING *'),
      activeKeyCount: db.prepare('SELECT count(*) AS n FROM api_keys WHERE account_id = ? AND revoked_at IS NULL'),
      insertKey: db.prepare('INSERT INTO api_keys (account_id, fingerprint, prefix, label, created_at) VALUES (?, ?, ?, ?, ?) RETURNING *'),
      keys: db.prepare('SELECT * FROM api_keys WHERE account_id = ? ORDER BY created_at, id'),
      activeKeys: db.prepare('SELECT * FROM api_keys WHERE account_id = ? AND revoked_at IS NULL ORDER BY created_at, id'),
      revokeKey: db.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL RETURNING *'),
      principal: db.prepare(
        `SELECT k.id AS key_id, k.fingerprint, k.last_used_at, a.* FROM api_keys k JOIN accounts a ON a.id = k.account_id
         WHERE k.fingerprint = ? AND k.revoked_at IS NULL AND a.blocked = 0`,
      ),
      touchKey: db.prepare('UPDATE api_keys SET last_used_at = ? WHERE id = ?'),
      consume: db.prepare(
        `INSERT INTO usage_counters (account_id, counter, period_start, used) SELECT @account, @counter, @period, @units WHERE @units <= @limit
         ON CONFLICT (account_id, counter, period_start) DO UPDATE SET used = used + @units WHERE used + @units <= @limit
         RETURNING used`,
      ),
      usage: db.prepare('SELECT used FROM usage_counters WHERE account_id = ? AND counter = ? AND period_start = ?'),
      audit: db.prepare('INSERT INTO audit_log (at, actor, action, subject, before, after) VALUES (?, ?, ?, ?, ?, ?)'),
      accountById: db.prepare('SELECT * FROM accounts WHERE id = ?'),
      insertToken: db.prepare('INSERT INTO sign_in_tokens (token_hash, account_id, created_at, expires_at) VALUES (?, ?, ?, ?)'),
      tokenUsable: db.prepare('SELECT 1 FROM sign_in_tokens WHERE token_hash = ? AND used_at IS NULL AND expires_at > ?'),
      consumeToken: db.prepare(
        `UPDATE sign_in_tokens SET used_at = ? WHERE token_hash = ? AND used_at IS NULL AND expires_at > ?
         RETURNING (SELECT json_object('id', a.id) FROM accounts a WHERE a.id = account_id AND a.blocked = 0) AS account`,
      ),
      purgeTokens: db.prepare('DELETE FROM sign_in_tokens WHERE expires_at < ?'),
      insertSession: db.prepare('INSERT INTO sessions (id_hash, account_id, csrf_token, created_at, expires_at) VALUES (?, ?, ?, ?, ?)'),
      session: db.prepare(
        'SELECT s.csrf_token, s.expires_at, a.* FROM sessions s JOIN accounts a ON a.id = s.account_id WHERE s.id_hash = ? AND s.expires_at > ? AND a.blocked = 0',
      ),
      deleteSession: db.prepare('DELETE FROM sessions WHERE id_hash = ?'),
      deleteAccountSessions: db.prepare('DELETE FROM sessions WHERE account_id = ?'),
      purgeSessions: db.prepare('DELETE FROM sessions WHERE expires_at < ?'),
      countRequest: db.prepare(
        `INSERT INTO request_limits (key, period_start, used) VALUES (@key, @period, 1)
         ON CONFLICT (key, period_start) DO UPDATE SET used = used + 1 WHERE used + 1 <= @limit RETURNING used`,
      ),
      requestCount: db.prepare('SELECT used FROM request_limits WHERE key = ? AND period_start = ?'),
    };
    const authenticateOne = (fingerprint: string, now: Date, read?: { periodStart: string; limit: number }) => {
      const row = this.statements.principal.get(fingerprint) as
        (AccountRow & { key_id: number; fingerprint: string; last_used_at: string | null }) | undefined;
      // The index lookup compares hashes, not keys; the final check is constant-time all the same.
      if (!row || !sameFingerprint(row.fingerprint, fingerprint)) return null;
      if (!row.last_used_at || now.getTime() - Date.parse(row.last_used_at) >= LAST_USED_RESOLUTION_MS)
        this.statements.touchKey.run(now.toISOString(), row.key_id);
      const principal = { account: toAccount(row), keyId: row.key_id };
      if (!read) return principal;
      return { ...principal, read: this.consumeNow(row.id, 'read', read.periodStart, 1, read.limit) };
    };
    this.barcodes = new SqliteBarcodes(
      db,
      (accountId, periodStart, units, limit) => this.consumeNow(accountId, 'submit', periodStart, units, limit),
      (actor, action, subject, before, after, now) =>
        this.statements.audit.run(now.toISOString(), actor, action, subject, JSON.stringify(before ?? null), JSON.stringify(after ?? null)),
    );
    this.authenticateBatch = this.db.transaction((batch: PendingAuthentication[]) =>
      batch.map((item) => authenticateOne(item.fingerprint, item.now, item.read)),
    );
  }

  async createAccount(input: { email: string; type: AccountType; submitLimit?: number }, now: Date): Promise<Account> {
    try {
      return toAccount(
        this.statements.insertAccount.get(
          input.email,
          input.type,
          input.submitLimit ?? DEFAULT_SUBMIT_LIMIT,
          now.toISOString(),
        ) as AccountRow,
      );
    } catch (error) {
      if ((error as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE') throw errors.accountExists(input.email);
      throw error;
    }
  }

  async listAccounts(): Promise<Account[]> {
    return (this.statements.accounts.all() as AccountRow[]).map(toAccount);
  }

  async findAccount(email: string): Promise<Account | null> {
    const row = this.statements.accountByEmail.get(email) as AccountRow | undefined;
    return row ? toAccount(row) : null;
  }

  async setBlocked(email: string, blocked: boolean, actor: string, now: Date, rules: StatusRules = DEFAULT_RULES): Promise<Account> {
    return this.changeAccount(email, actor, now, blocked ? 'account.block' : 'account.unblock', () => {
      const row = this.statements.setBlocked.get(blocked ? 1 : 0, email) as AccountRow | undefined;
      if (row) this.barcodes.recomputeAccount(row.id, now, rules);
      return row;
    });
  }

  async setAdmin(email: string, admin: boolean, actor: string, now: Date): Promise<Account> {
    return this.changeAccount(
      email,
      actor,
      now,
      admin ? 'account.admin' : 'account.unadmin',
      () => this.statements.setAdmin.get(admin ? 1 : 0, email) as AccountRow | undefined,
    );
  }

  async setSubmitLimit(email: string, limit: number, actor: string, now: Date): Promise<Account> {
    return this.changeAccount(
      email,
      actor,
      now,
      'account.set-limit',
      () => this.statements.setLimit.get(limit, email) as AccountRow | undefined,
    );
  }

  private changeAccount(email: string, actor: string, now: Date, action: string, change: () => AccountRow | undefined): Account {
    return this.db
      .transaction(() => {
        const before = this.statements.accountByEmail.get(email) as AccountRow | undefined;
        if (!before) throw errors.accountNotFound(email);
        const after = change()!;
        this.statements.audit.run(
          now.toISOString(),
          actor,
          action,
          email,
          JSON.stringify(toAccount(before)),
          JSON.stringify(toAccount(after)),
        );
        return toAccount(after);
      })
      .immediate();
  }

  async addKey(accountId: number, key: { fingerprint: string; prefix: string; label: string }, now: Date): Promise<ApiKeyRecord> {
    return durably(this.db, () =>
      this.db
        .transaction(() => {
          const { n } = this.statements.activeKeyCount.get(accountId) as { n: number };
          if (n >= MAX_ACTIVE_KEYS) {
            const account = this.statements.accountById.get(accountId) as AccountRow | undefined;
            throw errors.tooManyKeys(account?.email ?? `account ${accountId}`, MAX_ACTIVE_KEYS);
          }
          return toKey(this.statements.insertKey.get(accountId, key.fingerprint, key.prefix, key.label, now.toISOString()) as KeyRow);
        })
        .immediate(),
    );
  }

  async listKeys(accountId: number, options: { includeRevoked?: boolean } = {}): Promise<ApiKeyRecord[]> {
    return ((options.includeRevoked ? this.statements.keys : this.statements.activeKeys).all(accountId) as KeyRow[]).map(toKey);
  }

  async revokeKey(accountId: number, prefix: string, actor: string, now: Date): Promise<ApiKeyRecord> {
    return this.db
      .transaction(() => {
        const account = this.statements.accountById.get(accountId) as AccountRow | undefined;
        const match = keyMatchingPrefix(
          this.statements.activeKeys.all(accountId) as KeyRow[],
          prefix,
          account?.email ?? `account ${accountId}`,
        );
        const revoked = toKey(this.statements.revokeKey.get(now.toISOString(), match.id) as KeyRow);
        this.statements.audit.run(
          now.toISOString(),
          actor,
          'key.revoke',
          account?.email ?? String(accountId),
          JSON.stringify(toKey(match)),
          JSON.stringify(revoked),
        );
        return revoked;
      })
      .immediate();
  }

  async authenticate(
    fingerprint: string,
    now: Date,
    read?: { periodStart: string; limit: number },
  ): Promise<(Principal & { read?: Consumption }) | null> {
    return new Promise((resolve, reject) => {
      this.pending.push({ fingerprint, now, read, resolve, reject });
      if (this.pending.length === 1) setImmediate(() => this.flushAuthentications());
    });
  }

  /**
   * Group commit: the authentications that arrived in one turn of the event loop run in one
   * transaction, each still its own check-and-increment statement in arrival order. A commit
   * costs more than the statements it holds, so under load this multiplies throughput.
   */
  private flushAuthentications(): void {
    const batch = this.pending;
    this.pending = [];
    let results: ((Principal & { read?: Consumption }) | null)[];
    try {
      results = this.authenticateBatch.immediate(batch);
    } catch (error) {
      for (const item of batch) item.reject(error);
      return;
    }
    batch.forEach((item, i) => item.resolve(results[i]!));
  }

  async consume(accountId: number, counter: Counter, periodStart: string, units: number, limit: number): Promise<Consumption> {
    return this.consumeNow(accountId, counter, periodStart, units, limit);
  }

  private consumeNow(accountId: number, counter: Counter, periodStart: string, units: number, limit: number): Consumption {
    const row = this.statements.consume.get({ account: accountId, counter, period: periodStart, units, limit }) as
      { used: number } | undefined;
    if (row) return { allowed: true, used: row.used };
    return {
      allowed: false,
      used: (this.statements.usage.get(accountId, counter, periodStart) as { used: number } | undefined)?.used ?? 0,
    };
  }

  async usage(accountId: number, counter: Counter, periodStart: string): Promise<number> {
    return (this.statements.usage.get(accountId, counter, periodStart) as { used: number } | undefined)?.used ?? 0;
  }

  async submitBarcodes(
    input: { account: Account; periodStart: string; checks: ItemCheck[]; rules: StatusRules },
    now: Date,
  ): Promise<SubmitOutcome> {
    return this.barcodes.submit(input, now);
  }

  async mySubmissions(accountId: number, limit: number, offset: number): Promise<SubmissionRecord[]> {
    return this.barcodes.mine(accountId, limit, offset);
  }

  async listBarcodes(status?: BarcodeStatus): Promise<BarcodeSummary[]> {
    return this.barcodes.list(status);
  }

  async barcodeVotes(gtin14: string): Promise<{ summary: BarcodeSummary | null; votes: BarcodeVote[] }> {
    return this.barcodes.votes(gtin14);
  }

  async approveBarcode(gtin14: string, match: Match, actor: string, now: Date, rules: StatusRules): Promise<BarcodeSummary> {
    return this.barcodes.decide(gtin14, { decision: 'approved', match }, actor, now, rules);
  }

  async revokeBarcode(gtin14: string, actor: string, now: Date, rules: StatusRules): Promise<BarcodeSummary> {
    return this.barcodes.decide(gtin14, { decision: 'revoked' }, actor, now, rules);
  }

  async setContributorBlocked(
    accountId: number,
    contributorRef: string,
    blocked: boolean,
    actor: string,
    now: Date,
    rules: StatusRules,
  ): Promise<void> {
    this.barcodes.setContributorBlocked(accountId, contributorRef, blocked, actor, now, rules);
  }

  async approvedBarcodes(): Promise<Barcode[]> {
    return this.barcodes.approved();
  }

  async findAccountById(id: number): Promise<Account | null> {
    const row = this.statements.accountById.get(id) as AccountRow | undefined;
    return row ? toAccount(row) : null;
  }

  async createSignInToken(accountId: number, tokenHash: string, expiresAt: Date, now: Date): Promise<void> {
    durably(this.db, () => {
      this.statements.purgeTokens.run(now.toISOString());
      this.statements.insertToken.run(tokenHash, accountId, now.toISOString(), expiresAt.toISOString());
    });
  }

  async signInTokenUsable(tokenHash: string, now: Date): Promise<boolean> {
    return Boolean(this.statements.tokenUsable.get(tokenHash, now.toISOString()));
  }

  async consumeSignInToken(tokenHash: string, now: Date): Promise<Account | null> {
    const row = this.statements.consumeToken.get(now.toISOString(), tokenHash, now.toISOString()) as { account: string | null } | undefined;
    if (!row?.account) return null;
    return this.findAccountById((JSON.parse(row.account) as { id: number }).id);
  }

  async createSession(accountId: number, idHash: string, csrfToken: string, expiresAt: Date, now: Date): Promise<void> {
    durably(this.db, () => {
      this.statements.purgeSessions.run(now.toISOString());
      this.statements.insertSession.run(idHash, accountId, csrfToken, now.toISOString(), expiresAt.toISOString());
    });
  }

  async findSession(idHash: string, now: Date): Promise<WebSession | null> {
    const row = this.statements.session.get(idHash, now.toISOString()) as
      (AccountRow & { csrf_token: string; expires_at: string }) | undefined;
    return row ? { account: toAccount(row), csrfToken: row.csrf_token, expiresAt: row.expires_at } : null;
  }

  async deleteSession(idHash: string): Promise<void> {
    this.statements.deleteSession.run(idHash);
  }

  async deleteAccountSessions(accountId: number): Promise<number> {
    return this.statements.deleteAccountSessions.run(accountId).changes;
  }

  async countRequest(key: string, periodStart: string, limit: number): Promise<Consumption> {
    const row = this.statements.countRequest.get({ key, period: periodStart, limit }) as { used: number } | undefined;
    if (row) return { allowed: true, used: row.used };
    return { allowed: false, used: (this.statements.requestCount.get(key, periodStart) as { used: number } | undefined)?.used ?? 0 };
  }

  async createSignUp(input: SignUpRequest, now: Date): Promise<void> {
    durably(this.db, () => {
      this.db.prepare(SIGN_UP_SQL.purge).run(now.toISOString());
      this.db
        .prepare(SIGN_UP_SQL.insert)
        .run(
          input.email,
          input.type,
          input.organisation,
          input.rulesVersion,
          input.tokenHash,
          now.toISOString(),
          input.expiresAt.toISOString(),
        );
    });
  }

  async signUpUsable(tokenHash: string, now: Date): Promise<boolean> {
    return Boolean(this.db.prepare(SIGN_UP_SQL.usable).get(tokenHash, now.toISOString()));
  }

  async confirmSignUp(tokenHash: string, approvalTypes: readonly AccountType[], now: Date): Promise<SignUpConfirmation | null> {
    return durably(this.db, () =>
      this.db
        .transaction((): SignUpConfirmation | null => {
          const claimed = this.db.prepare(SIGN_UP_SQL.claim).get(now.toISOString(), tokenHash, now.toISOString()) as
            Record<string, unknown> | undefined;
          if (!claimed) return null;
          const signUp = toSignUp(claimed);
          const existing = this.statements.accountByEmail.get(signUp.email) as AccountRow | undefined;
          const step = confirmationStep(signUp, existing ? toAccount(existing) : null, approvalTypes);
          if (step === 'existed') {
            this.db.prepare(SIGN_UP_SQL.setStatus).run('existed', signUp.id);
            return { outcome: 'existed', account: toAccount(existing!) };
          }
          if (step === 'awaiting_approval')
            return {
              outcome: 'awaiting_approval',
              signUp: toSignUp(this.db.prepare(SIGN_UP_SQL.setStatus).get('awaiting_approval', signUp.id) as Record<string, unknown>),
            };
          const account = this.insertSignedUp(signUp, now, 'web (sign-up)');
          return { outcome: 'created', account };
        })
        .immediate(),
    );
  }

  async pendingSignUps(): Promise<SignUp[]> {
    return (this.db.prepare(SIGN_UP_SQL.pending).all() as Record<string, unknown>[]).map(toSignUp);
  }

  async decideSignUp(id: number, approve: boolean, actor: string, now: Date): Promise<{ signUp: SignUp; account: Account | null } | null> {
    return durably(this.db, () =>
      this.db
        .transaction(() => {
          const row = this.db.prepare(SIGN_UP_SQL.decide).get(approve ? 'approved' : 'refused', now.toISOString(), actor, id) as
            Record<string, unknown> | undefined;
          if (!row) return null;
          const signUp = toSignUp(row);
          this.statements.audit.run(
            now.toISOString(),
            actor,
            approve ? 'sign_up.approve' : 'sign_up.refuse',
            signUp.email,
            JSON.stringify(null),
            JSON.stringify(signUp),
          );
          if (!approve) return { signUp, account: null };
          const existing = this.statements.accountByEmail.get(signUp.email) as AccountRow | undefined;
          return { signUp, account: existing ? toAccount(existing) : this.insertSignedUp(signUp, now, actor) };
        })
        .immediate(),
    );
  }

  private insertSignedUp(signUp: SignUp, now: Date, actor: string): Account {
    const account = toAccount(
      this.db
        .prepare(SIGN_UP_SQL.insertAccount)
        .get(signUp.email, signUp.type, DEFAULT_SUBMIT_LIMIT, now.toISOString(), ...signUpAccountValues(signUp)) as AccountRow,
    );
    this.statements.audit.run(now.toISOString(), actor, 'account.sign_up', account.email, JSON.stringify(null), JSON.stringify(account));
    return account;
  }

  async auditLog(limit: number): Promise<AuditRecord[]> {
    return (this.db.prepare(SIGN_UP_SQL.auditLog).all(limit) as Record<string, unknown>[]).map(toAuditRecord);
  }

  async audit(entry: AuditEntry, now: Date): Promise<void> {
    this.statements.audit.run(
      now.toISOString(),
      entry.actor,
      entry.action,
      entry.subject,
      JSON.stringify(entry.before ?? null),
      JSON.stringify(entry.after ?? null),
    );
  }

  async purgeExpired(now: Date, batch: number): Promise<PurgeCounts> {
    const cutoff = purgeCutoff(now);
    const counts = {} as PurgeCounts;
    for (const rule of PURGE_RULES)
      counts[rule.name] = this.db.prepare(rule.sql).run(rule.name === 'key_forms' ? now.toISOString() : cutoff, batch).changes;
    return counts;
  }

  async close(): Promise<void> {
    this.db.close();
  }
}

/** Applies the migrations not yet applied, each in its own IMMEDIATE transaction (safe when several processes start at once). */
function migrate(db: Database.Database): void {
  db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)');
  SQLITE_MIGRATIONS.forEach((sql, index) => {
    const version = index + 1;
    db.transaction(() => {
      if (db.prepare('SELECT 1 FROM schema_migrations WHERE version = ?').get(version)) return;
      db.exec(sql);
      db.prepare('INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)').run(version, new Date().toISOString());
    }).immediate();
  });
}
