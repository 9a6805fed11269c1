import pg from 'pg';
import { planBatch, type BatchState, type StoredBarcode, type StoredVote } from '../barcodes/plan-batch.ts';
import {
  barcodeStatus,
  DEFAULT_RULES,
  recordStatus,
  type AdminDecision,
  type BarcodeStatus,
  type Match,
  type StatusRules,
} from '../barcodes/status-rules.ts';
import type { ItemCheck } from '../barcodes/validate-item.ts';
import type { Barcode, BarcodeKind } from '../dataset/model.ts';
import { errors } from '../errors.ts';
import { keyMatchingPrefix } from './key-rules.ts';
import { PURGE_RULES, purgeCutoff, type PurgeCounts } from './purge-rules.ts';
import { canonicalGtin } from '../gs1/gtin.ts';
import { formatWithOffset } from '../util/dates.ts';
import { sameFingerprint } from './api-key.ts';
import { PG_MIGRATIONS } from './pg-migrations.ts';
import { toAccount, toAuditRecord } from './rows.ts';
import { confirmationStep, numbered, SIGN_UP_SQL, signUpAccountValues, toSignUp } from './sign-up-rules.ts';
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

type Row = Record<string, unknown>;
type Queryable = pg.Pool | pg.PoolClient;

const toKey = (row: Row): ApiKeyRecord => ({
  id: Number(row.id),
  accountId: Number(row.account_id),
  prefix: String(row.prefix),
  label: String(row.label),
  createdAt: String(row.created_at),
  lastUsedAt: (row.last_used_at as string | null) ?? null,
  revokedAt: (row.revoked_at as string | null) ?? null,
});
const matchOf = (row: Row): Match | null =>
  row.adm_code === null ? null : { admCode: Number(row.adm_code), kind: row.kind as BarcodeKind, units: Number(row.units) };
const adminOf = (row: Row): AdminDecision =>
  row.admin_decision === 'revoked'
    ? { decision: 'revoked' }
    : row.admin_decision === 'approved'
      ? { decision: 'approved', match: matchOf(row)! }
      : null;
const toSummary = (row: Row): BarcodeSummary => ({
  gtin14: String(row.gtin),
  barcode: canonicalGtin(String(row.gtin)),
  status: row.status as BarcodeStatus,
  match: matchOf(row),
  adminDecision: (row.admin_decision as 'approved' | 'revoked' | null) ?? null,
  votes: Number(row.votes ?? 0),
  updatedAt: String(row.updated_at),
});

const MIGRATION_LOCK = 7_461_001;
const LAST_USED_RESOLUTION_MS = 60_000;

const VOTES_OF = `SELECT v.gtin, v.account_id, v.adm_code, v.kind, v.units, a.type,
    (NOT a.blocked AND NOT EXISTS (SELECT 1 FROM blocked_contributors b WHERE b.account_id = v.account_id AND b.contributor_ref = v.contributor_ref)) AS counted
  FROM votes v JOIN accounts a ON a.id = v.account_id WHERE v.gtin = ANY($1::text[])`;

const toStoredVote = (row: Row): StoredVote => ({
  accountId: Number(row.account_id),
  admCode: Number(row.adm_code),
  kind: row.kind as BarcodeKind,
  units: Number(row.units),
  accountType: row.type as AccountType,
  counted: Boolean(row.counted),
});

/**
 * The registry on PostgreSQL (the `pg` driver and its pool), for several proxy instances sharing
 * one database. The same behaviour as the SQLite registry; every check-and-change is one statement
 * (counters) or one transaction holding per-barcode advisory locks (batches, decisions), never a
 * read in this process followed by a write.
 */
export class PgRegistry implements Registry {
  private constructor(private readonly pool: pg.Pool) {}

  /**
   * Connects and applies the migrations not yet applied. An advisory lock serialises instances
   * that start at once. `schema` (the URL's `?schema=` parameter) isolates a registry in a schema.
   */
  static async open(url: string, options: { poolSize?: number } = {}): Promise<PgRegistry> {
    const parsed = new URL(url);
    const schema = parsed.searchParams.get('schema');
    parsed.searchParams.delete('schema');
    if (schema !== null && !/^[a-z_][a-z0-9_]{0,62}$/.test(schema))
      throw errors.usage(`schema ${schema} is not a plain lower-case SQL name`);
    const connectionString = parsed.toString();
    if (schema) {
      const admin = new pg.Client({ connectionString });
      await admin.connect();
      try {
        // IF NOT EXISTS still races when instances start together: the loser's duplicate is harmless.
        await admin.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`).catch((error: { code?: string }) => {
          if (error.code !== '23505' && error.code !== '42P06') throw error;
        });
      } finally {
        await admin.end();
      }
    }
    // Sessions commit without waiting for the WAL flush: the per-request read counters may forget
    // their last increments in a database crash, as with SQLite's NORMAL level, and a GET costs no
    // disk flush. Transactions that must survive (batches, keys, accounts, decisions) turn it back on.
    const settings = ['-c synchronous_commit=off', ...(schema ? [`-c search_path=${schema}`] : [])].join(' ');
    const pool = new pg.Pool({ connectionString, max: options.poolSize ?? 10, options: settings });
    // An idle client's error (the server restarted) must not crash the process: the pool replaces it.
    pool.on('error', () => {});
    const registry = new PgRegistry(pool);
    await registry.migrate();
    return registry;
  }

  private async migrate(): Promise<void> {
    const client = await this.pool.connect();
    try {
      await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
      await client.query('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)');
      const applied = new Set((await client.query('SELECT version FROM schema_migrations')).rows.map((row) => Number(row.version)));
      for (const [index, sql] of PG_MIGRATIONS.entries()) {
        if (applied.has(index + 1)) continue;
        await client.query('BEGIN');
        await client.query(sql);
        await client.query('INSERT INTO schema_migrations (version, applied_at) VALUES ($1, $2)', [index + 1, new Date().toISOString()]);
        await client.query('COMMIT');
      }
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      throw error;
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => {});
      client.release();
    }
  }

  /** Runs `work` in one transaction on one pooled connection. */
  private async transaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('SET LOCAL synchronous_commit = on');
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      throw error;
    } finally {
      client.release();
    }
  }

  private async one(db: Queryable, sql: string, params: unknown[] = []): Promise<Row | undefined> {
    return (await db.query(sql, params)).rows[0] as Row | undefined;
  }

  async createAccount(input: { email: string; type: AccountType; submitLimit?: number }, now: Date): Promise<Account> {
    try {
      return await this.transaction(async (client) =>
        toAccount(
          (await this.one(client, 'INSERT INTO accounts (email, type, submit_limit, created_at) VALUES ($1, $2, $3, $4) RETURNING *', [
            input.email,
            input.type,
            input.submitLimit ?? DEFAULT_SUBMIT_LIMIT,
            now.toISOString(),
          ]))!,
        ),
      );
    } catch (error) {
      if ((error as { code?: string }).code === '23505') throw errors.accountExists(input.email);
      throw error;
    }
  }

  async listAccounts(): Promise<Account[]> {
    return (await this.pool.query('SELECT * FROM accounts ORDER BY email')).rows.map(toAccount);
  }

  async findAccount(email: string): Promise<Account | null> {
    const row = await this.one(this.pool, 'SELECT * FROM accounts WHERE email = $1', [email]);
    return row ? toAccount(row) : null;
  }

  async findAccountById(id: number): Promise<Account | null> {
    const row = await this.one(this.pool, 'SELECT * FROM accounts WHERE id = $1', [id]);
    return row ? toAccount(row) : null;
  }

  async setBlocked(email: string, blocked: boolean, actor: string, now: Date, rules: StatusRules = DEFAULT_RULES): Promise<Account> {
    return this.changeAccount(email, actor, now, blocked ? 'account.block' : 'account.unblock', async (client) => {
      const row = await this.one(client, 'UPDATE accounts SET blocked = $1 WHERE email = $2 RETURNING *', [blocked, email]);
      if (row) {
        const gtins = (await client.query('SELECT gtin FROM votes WHERE account_id = $1 ORDER BY gtin', [row.id])).rows.map((r) =>
          String(r.gtin),
        );
        await this.recompute(client, gtins, now, rules);
      }
      return row;
    });
  }

  async setAdmin(email: string, admin: boolean, actor: string, now: Date): Promise<Account> {
    return this.changeAccount(email, actor, now, admin ? 'account.admin' : 'account.unadmin', (client) =>
      this.one(client, 'UPDATE accounts SET admin = $1 WHERE email = $2 RETURNING *', [admin, email]),
    );
  }

  async setSubmitLimit(email: string, limit: number, actor: string, now: Date): Promise<Account> {
    return this.changeAccount(email, actor, now, 'account.set-limit', (client) =>
      this.one(client, 'UPDATE accounts SET submit_limit = $1 WHERE email = $2 RETURNING *', [limit, email]),
    );
  }

  private changeAccount(
    email: string,
    actor: string,
    now: Date,
    action: string,
    change: (client: pg.PoolClient) => Promise<Row | undefined>,
  ): Promise<Account> {
    return this.transaction(async (client) => {
      const before = await this.one(client, 'SELECT * FROM accounts WHERE email = $1 FOR UPDATE', [email]);
      if (!before) throw errors.accountNotFound(email);
      const after = toAccount((await change(client))!);
      await this.auditWith(client, { actor, action, subject: email, before: toAccount(before), after }, now);
      return after;
    });
  }

  async addKey(accountId: number, key: { fingerprint: string; prefix: string; label: string }, now: Date): Promise<ApiKeyRecord> {
    return this.transaction(async (client) => {
      // Locking the account row serialises key creation per account across instances.
      const account = await this.one(client, 'SELECT email FROM accounts WHERE id = $1 FOR UPDATE', [accountId]);
      const { n } = (await this.one(client, 'SELECT count(*)::int AS n FROM api_keys WHERE account_id = $1 AND revoked_at IS NULL', [
        accountId,
      ]))!;
      if (Number(n) >= MAX_ACTIVE_KEYS) throw errors.tooManyKeys(String(account?.email ?? `account ${accountId}`), MAX_ACTIVE_KEYS);
      return toKey(
        (await this.one(
          client,
          'INSERT INTO api_keys (account_id, fingerprint, prefix, label, created_at) VALUES ($1, $2, $3, $4, $5) RETURNING *',
          [accountId, key.fingerprint, key.prefix, key.label, now.toISOString()],
        ))!,
      );
    });
  }

  async listKeys(accountId: number, options: { includeRevoked?: boolean } = {}): Promise<ApiKeyRecord[]> {
    const sql = `SELECT * FROM api_keys WHERE account_id = $1 ${options.includeRevoked ? '' : 'AND revoked_at IS NULL'} ORDER BY created_at, id`;
    return (await this.pool.query(sql, [accountId])).rows.map(toKey);
  }

  async revokeKey(accountId: number, prefix: string, actor: string, now: Date): Promise<ApiKeyRecord> {
    return this.transaction(async (client) => {
      const account = await this.one(client, 'SELECT email FROM accounts WHERE id = $1 FOR UPDATE', [accountId]);
      const email = String(account?.email ?? `account ${accountId}`);
      const rows = (await client.query('SELECT * FROM api_keys WHERE account_id = $1 AND revoked_at IS NULL', [accountId])).rows as Row[];
      const { row: match } = keyMatchingPrefix(
        rows.map((row) => ({ row, prefix: String(row.prefix) })),
        prefix,
        email,
      );
      const revoked = toKey(
        (await this.one(client, 'UPDATE api_keys SET revoked_at = $1 WHERE id = $2 RETURNING *', [now.toISOString(), match.id]))!,
      );
      await this.auditWith(client, { actor, action: 'key.revoke', subject: email, before: toKey(match), after: revoked }, now);
      return revoked;
    });
  }

  async authenticate(
    fingerprint: string,
    now: Date,
    read?: { periodStart: string; limit: number },
  ): Promise<(Principal & { read?: Consumption }) | null> {
    // One statement: the key lookup, the last-use stamp and the read's check-and-increment.
    // ON CONFLICT … DO UPDATE … WHERE re-checks the row under its lock, so concurrent instances stay exact.
    // A named statement: parsed and planned once per connection, as this runs on every GET.
    const row = (
      await this.pool.query({
        name: 'tariff_authenticate',
        text: `WITH k AS (
         SELECT k.id AS key_id, k.fingerprint, a.* FROM api_keys k JOIN accounts a ON a.id = k.account_id
         WHERE k.fingerprint = $1 AND k.revoked_at IS NULL AND NOT a.blocked),
       touch AS (
         UPDATE api_keys SET last_used_at = $2 WHERE id = (SELECT key_id FROM k) AND (last_used_at IS NULL OR last_used_at <= $3) RETURNING 1),
       c AS (
         INSERT INTO usage_counters (account_id, counter, period_start, used)
         SELECT id, 'read', $4::text, 1 FROM k WHERE $5::boolean AND 1 <= $6::int
         ON CONFLICT (account_id, counter, period_start) DO UPDATE SET used = usage_counters.used + 1 WHERE usage_counters.used + 1 <= $6::int
         RETURNING used)
       SELECT k.*, (SELECT used FROM c) AS consumed, (SELECT count(*) FROM touch) AS touched,
         (SELECT u.used FROM usage_counters u WHERE u.account_id = k.id AND u.counter = 'read' AND u.period_start = $4) AS current
       FROM k`,
        values: [
          fingerprint,
          now.toISOString(),
          new Date(now.getTime() - LAST_USED_RESOLUTION_MS).toISOString(),
          read?.periodStart ?? '',
          Boolean(read),
          read?.limit ?? 0,
        ],
      })
    ).rows[0] as Row | undefined;
    if (!row || !sameFingerprint(String(row.fingerprint), fingerprint)) return null;
    const principal = { account: toAccount(row), keyId: Number(row.key_id) };
    if (!read) return principal;
    const consumed = row.consumed === null ? null : Number(row.consumed);
    return {
      ...principal,
      read: consumed !== null ? { allowed: true, used: consumed } : { allowed: false, used: Number(row.current ?? 0) },
    };
  }

  private async consumeWith(
    db: Queryable,
    accountId: number,
    counter: Counter,
    periodStart: string,
    units: number,
    limit: number,
  ): Promise<Consumption> {
    const row = await this.one(
      db,
      `INSERT INTO usage_counters (account_id, counter, period_start, used) SELECT $1::int, $2::text, $3::text, $4::int WHERE $4::int <= $5::int
       ON CONFLICT (account_id, counter, period_start) DO UPDATE SET used = usage_counters.used + $4::int WHERE usage_counters.used + $4::int <= $5::int
       RETURNING used`,
      [accountId, counter, periodStart, units, limit],
    );
    if (row) return { allowed: true, used: Number(row.used) };
    return { allowed: false, used: await this.usageWith(db, accountId, counter, periodStart) };
  }

  consume(accountId: number, counter: Counter, periodStart: string, units: number, limit: number): Promise<Consumption> {
    return this.consumeWith(this.pool, accountId, counter, periodStart, units, limit);
  }

  private async usageWith(db: Queryable, accountId: number, counter: Counter, periodStart: string): Promise<number> {
    const row = await this.one(db, 'SELECT used FROM usage_counters WHERE account_id = $1 AND counter = $2 AND period_start = $3', [
      accountId,
      counter,
      periodStart,
    ]);
    return row ? Number(row.used) : 0;
  }

  usage(accountId: number, counter: Counter, periodStart: string): Promise<number> {
    return this.usageWith(this.pool, accountId, counter, periodStart);
  }

  /** Holds each barcode's lock until the transaction ends, in one order everywhere (no deadlock). */
  private async lockBarcodes(client: pg.PoolClient, gtins: string[]): Promise<void> {
    await client.query(
      'SELECT count(pg_advisory_xact_lock(h)) FROM (SELECT DISTINCT hashtext(g) AS h FROM unnest($1::text[]) AS g ORDER BY 1) AS locks',
      [gtins],
    );
  }

  private async readState(client: pg.PoolClient, accountId: number, gtins: string[], refs: string[]): Promise<BatchState> {
    const state: BatchState = { barcodes: new Map(), votes: new Map(gtins.map((gtin) => [gtin, []])), blockedRefs: new Set() };
    for (const row of (await client.query('SELECT * FROM barcodes WHERE gtin = ANY($1::text[])', [gtins])).rows as Row[]) {
      state.barcodes.set(String(row.gtin), { status: row.status as BarcodeStatus, match: matchOf(row), admin: adminOf(row) });
    }
    for (const row of (await client.query(VOTES_OF, [gtins])).rows as Row[]) state.votes.get(String(row.gtin))!.push(toStoredVote(row));
    if (refs.length > 0) {
      for (const row of (
        await client.query('SELECT contributor_ref FROM blocked_contributors WHERE account_id = $1 AND contributor_ref = ANY($2::text[])', [
          accountId,
          refs,
        ])
      ).rows) {
        state.blockedRefs.add(String(row.contributor_ref));
      }
    }
    return state;
  }

  private async saveBarcodes(client: pg.PoolClient, barcodes: (StoredBarcode & { gtin14: string })[], at: string): Promise<void> {
    if (barcodes.length === 0) return;
    await client.query(
      `INSERT INTO barcodes (gtin, status, adm_code, kind, units, admin_decision, updated_at)
       SELECT g, s, a, k, u, d, $7 FROM unnest($1::text[], $2::text[], $3::int[], $4::text[], $5::int[], $6::text[]) AS t(g, s, a, k, u, d)
       ON CONFLICT (gtin) DO UPDATE SET status = excluded.status, adm_code = excluded.adm_code, kind = excluded.kind, units = excluded.units,
         admin_decision = excluded.admin_decision, updated_at = excluded.updated_at`,
      [
        barcodes.map((b) => b.gtin14),
        barcodes.map((b) => b.status),
        barcodes.map((b) => b.match?.admCode ?? null),
        barcodes.map((b) => b.match?.kind ?? null),
        barcodes.map((b) => b.match?.units ?? null),
        barcodes.map((b) => b.admin?.decision ?? null),
        at,
      ],
    );
  }

  /** Recomputes the status of these barcodes from their counted votes and the administrator's decisions. */
  private async recompute(client: pg.PoolClient, gtins: string[], now: Date, rules: StatusRules, decision?: AdminDecision): Promise<void> {
    if (gtins.length === 0) return;
    await this.lockBarcodes(client, gtins);
    const state = await this.readState(client, 0, gtins, []);
    const updated = gtins.map((gtin) => {
      const admin = decision !== undefined ? decision : (state.barcodes.get(gtin)?.admin ?? null);
      const result = barcodeStatus(
        state.votes.get(gtin)!.filter((vote) => vote.counted),
        admin,
        rules,
      );
      return { gtin14: gtin, status: result.status, match: result.match, admin };
    });
    await this.saveBarcodes(client, updated, now.toISOString());
  }

  async submitBarcodes(
    input: { account: Account; periodStart: string; checks: ItemCheck[]; rules: StatusRules },
    now: Date,
  ): Promise<SubmitOutcome> {
    const { account, checks, rules } = input;
    const candidates = checks.flatMap((check) => (check.ok ? [check.candidate] : []));
    const gtins = [...new Set(candidates.map((c) => c.gtin14))].sort();
    const refs = [...new Set(candidates.flatMap((c) => (c.contributorRef === null ? [] : [c.contributorRef])))];
    return this.transaction(async (client) => {
      const quota = await this.consumeWith(client, account.id, 'submit', input.periodStart, checks.length, account.submitLimit);
      if (!quota.allowed) return { allowed: false, used: quota.used };
      await this.lockBarcodes(client, gtins);
      const plan = planBatch(account, checks, await this.readState(client, account.id, gtins, refs), rules);
      const at = now.toISOString();
      if (plan.votes.length > 0) {
        const v = plan.votes;
        await client.query(
          `INSERT INTO votes (gtin, account_id, adm_code, kind, units, contributor_ref, barcode_as_sent, submitted_at)
           SELECT g, $2, a, k, u, r, s, $8 FROM unnest($1::text[], $3::int[], $4::text[], $5::int[], $6::text[], $7::text[]) AS t(g, a, k, u, r, s)
           ON CONFLICT (gtin, account_id) DO UPDATE SET adm_code = excluded.adm_code, kind = excluded.kind, units = excluded.units,
             contributor_ref = excluded.contributor_ref, barcode_as_sent = excluded.barcode_as_sent, submitted_at = excluded.submitted_at`,
          [
            v.map((x) => x.gtin14),
            account.id,
            v.map((x) => x.admCode),
            v.map((x) => x.kind),
            v.map((x) => x.units),
            v.map((x) => x.contributorRef),
            v.map((x) => x.barcodeAsSent),
            at,
          ],
        );
      }
      await this.saveBarcodes(client, plan.barcodes, at);
      return { allowed: true, used: quota.used, results: plan.results };
    });
  }

  async mySubmissions(accountId: number, limit: number, offset: number): Promise<SubmissionRecord[]> {
    const rows = (
      await this.pool.query(
        `SELECT v.barcode_as_sent, v.adm_code, v.kind, v.units, v.contributor_ref, v.submitted_at, b.status, b.adm_code AS b_adm_code, b.kind AS b_kind, b.units AS b_units
       FROM votes v JOIN barcodes b ON b.gtin = v.gtin WHERE v.account_id = $1 ORDER BY v.submitted_at DESC, v.gtin LIMIT $2 OFFSET $3`,
        [accountId, limit, offset],
      )
    ).rows as Row[];
    return rows.map((row) => {
      const submitted = { admCode: Number(row.adm_code), kind: row.kind as BarcodeKind, units: Number(row.units) };
      return {
        barcode: String(row.barcode_as_sent),
        ...submitted,
        contributorRef: (row.contributor_ref as string | null) ?? null,
        submittedAt: formatWithOffset(new Date(String(row.submitted_at))),
        status: recordStatus(submitted, {
          status: row.status as BarcodeStatus,
          match: matchOf({ adm_code: row.b_adm_code, kind: row.b_kind, units: row.b_units }),
        }),
      };
    });
  }

  async listBarcodes(status?: BarcodeStatus): Promise<BarcodeSummary[]> {
    const rows = await this.pool.query(
      'SELECT b.*, (SELECT count(*)::int FROM votes v WHERE v.gtin = b.gtin) AS votes FROM barcodes b WHERE $1::text IS NULL OR b.status = $1 ORDER BY b.gtin',
      [status ?? null],
    );
    return rows.rows.map(toSummary);
  }

  async barcodeVotes(gtin14: string): Promise<{ summary: BarcodeSummary | null; votes: BarcodeVote[] }> {
    return this.votesWith(this.pool, gtin14);
  }

  private async votesWith(db: Queryable, gtin14: string): Promise<{ summary: BarcodeSummary | null; votes: BarcodeVote[] }> {
    const row = await this.one(db, 'SELECT * FROM barcodes WHERE gtin = $1', [gtin14]);
    const votes = (
      (
        await db.query(
          `SELECT v.*, a.email, a.type, a.blocked, EXISTS (SELECT 1 FROM blocked_contributors b WHERE b.account_id = v.account_id AND b.contributor_ref = v.contributor_ref) AS ref_blocked
       FROM votes v JOIN accounts a ON a.id = v.account_id WHERE v.gtin = $1 ORDER BY v.submitted_at, a.email`,
          [gtin14],
        )
      ).rows as Row[]
    ).map((v): BarcodeVote => ({
      email: String(v.email),
      accountType: v.type as AccountType,
      admCode: Number(v.adm_code),
      kind: v.kind as BarcodeKind,
      units: Number(v.units),
      contributorRef: (v.contributor_ref as string | null) ?? null,
      barcodeAsSent: String(v.barcode_as_sent),
      submittedAt: String(v.submitted_at),
      counted: !v.blocked && !v.ref_blocked,
    }));
    return { summary: row ? toSummary({ ...row, votes: votes.length }) : null, votes };
  }

  private decide(
    gtin14: string,
    decision: Exclude<AdminDecision, null>,
    actor: string,
    now: Date,
    rules: StatusRules,
  ): Promise<BarcodeSummary> {
    return this.transaction(async (client) => {
      await this.lockBarcodes(client, [gtin14]);
      const before = (await this.one(client, 'SELECT * FROM barcodes WHERE gtin = $1', [gtin14])) ?? null;
      await this.recompute(client, [gtin14], now, rules, decision);
      const after = (await this.votesWith(client, gtin14)).summary!;
      await this.auditWith(
        client,
        {
          actor,
          action: decision.decision === 'approved' ? 'barcode.approve' : 'barcode.revoke',
          subject: canonicalGtin(gtin14),
          before,
          after,
        },
        now,
      );
      return after;
    });
  }

  approveBarcode(gtin14: string, match: Match, actor: string, now: Date, rules: StatusRules): Promise<BarcodeSummary> {
    return this.decide(gtin14, { decision: 'approved', match }, actor, now, rules);
  }

  revokeBarcode(gtin14: string, actor: string, now: Date, rules: StatusRules): Promise<BarcodeSummary> {
    return this.decide(gtin14, { decision: 'revoked' }, actor, now, rules);
  }

  async setContributorBlocked(
    accountId: number,
    contributorRef: string,
    blocked: boolean,
    actor: string,
    now: Date,
    rules: StatusRules,
  ): Promise<void> {
    await this.transaction(async (client) => {
      const was = Boolean(
        await this.one(client, 'SELECT 1 FROM blocked_contributors WHERE account_id = $1 AND contributor_ref = $2', [
          accountId,
          contributorRef,
        ]),
      );
      if (blocked)
        await client.query(
          'INSERT INTO blocked_contributors (account_id, contributor_ref, blocked_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING',
          [accountId, contributorRef, now.toISOString()],
        );
      else
        await client.query('DELETE FROM blocked_contributors WHERE account_id = $1 AND contributor_ref = $2', [accountId, contributorRef]);
      const gtins = (
        await client.query('SELECT gtin FROM votes WHERE account_id = $1 AND contributor_ref = $2 ORDER BY gtin', [
          accountId,
          contributorRef,
        ])
      ).rows.map((r) => String(r.gtin));
      await this.recompute(client, gtins, now, rules);
      await this.auditWith(
        client,
        {
          actor,
          action: blocked ? 'contributor.block' : 'contributor.unblock',
          subject: `${accountId}/${contributorRef}`,
          before: { blocked: was },
          after: { blocked },
        },
        now,
      );
    });
  }

  async approvedBarcodes(): Promise<Barcode[]> {
    const rows = (await this.pool.query("SELECT gtin, adm_code, kind, units FROM barcodes WHERE status = 'approved' ORDER BY gtin"))
      .rows as Row[];
    return rows.map((row) => ({
      barcode: canonicalGtin(String(row.gtin)),
      admCode: Number(row.adm_code),
      kind: row.kind as BarcodeKind,
      units: Number(row.units),
    }));
  }

  async createSignInToken(accountId: number, tokenHash: string, expiresAt: Date, now: Date): Promise<void> {
    await this.pool.query('DELETE FROM sign_in_tokens WHERE expires_at < $1', [now.toISOString()]);
    await this.pool.query('INSERT INTO sign_in_tokens (token_hash, account_id, created_at, expires_at) VALUES ($1, $2, $3, $4)', [
      tokenHash,
      accountId,
      now.toISOString(),
      expiresAt.toISOString(),
    ]);
  }

  async signInTokenUsable(tokenHash: string, now: Date): Promise<boolean> {
    return Boolean(
      await this.one(this.pool, 'SELECT 1 FROM sign_in_tokens WHERE token_hash = $1 AND used_at IS NULL AND expires_at > $2', [
        tokenHash,
        now.toISOString(),
      ]),
    );
  }

  async consumeSignInToken(tokenHash: string, now: Date): Promise<Account | null> {
    const row = await this.one(
      this.pool,
      `UPDATE sign_in_tokens t SET used_at = $1 FROM accounts a WHERE t.token_hash = $2 AND t.used_at IS NULL AND t.expires_at > $1 AND a.id = t.account_id AND NOT a.blocked RETURNING a.*`,
      [now.toISOString(), tokenHash],
    );
    return row ? toAccount(row) : null;
  }

  async createSession(accountId: number, idHash: string, csrfToken: string, expiresAt: Date, now: Date): Promise<void> {
    await this.pool.query('DELETE FROM sessions WHERE expires_at < $1', [now.toISOString()]);
    await this.pool.query('INSERT INTO sessions (id_hash, account_id, csrf_token, created_at, expires_at) VALUES ($1, $2, $3, $4, $5)', [
      idHash,
      accountId,
      csrfToken,
      now.toISOString(),
      expiresAt.toISOString(),
    ]);
  }

  async findSession(idHash: string, now: Date): Promise<WebSession | null> {
    const row = await this.one(
      this.pool,
      'SELECT s.csrf_token, s.expires_at, a.* FROM sessions s JOIN accounts a ON a.id = s.account_id WHERE s.id_hash = $1 AND s.expires_at > $2 AND NOT a.blocked',
      [idHash, now.toISOString()],
    );
    return row ? { account: toAccount(row), csrfToken: String(row.csrf_token), expiresAt: String(row.expires_at) } : null;
  }

  async deleteSession(idHash: string): Promise<void> {
    await this.pool.query('DELETE FROM sessions WHERE id_hash = $1', [idHash]);
  }

  async deleteAccountSessions(accountId: number): Promise<number> {
    return (await this.pool.query('DELETE FROM sessions WHERE account_id = $1', [accountId])).rowCount ?? 0;
  }

  async countRequest(key: string, periodStart: string, limit: number): Promise<Consumption> {
    const row = await this.one(
      this.pool,
      `INSERT INTO request_limits (key, period_start, used) VALUES ($1, $2, 1)
       ON CONFLICT (key, period_start) DO UPDATE SET used = request_limits.used + 1 WHERE request_limits.used + 1 <= $3::int RETURNING used`,
      [key, periodStart, limit],
    );
    if (row) return { allowed: true, used: Number(row.used) };
    const current = await this.one(this.pool, 'SELECT used FROM request_limits WHERE key = $1 AND period_start = $2', [key, periodStart]);
    return { allowed: false, used: Number(current?.used ?? 0) };
  }

  async createSignUp(input: SignUpRequest, now: Date): Promise<void> {
    await this.transaction(async (client) => {
      await client.query(numbered(SIGN_UP_SQL.purge), [now.toISOString()]);
      await client.query(numbered(SIGN_UP_SQL.insert), [
        input.email,
        input.type,
        input.organisation,
        input.rulesVersion,
        input.tokenHash,
        now.toISOString(),
        input.expiresAt.toISOString(),
      ]);
    });
  }

  async signUpUsable(tokenHash: string, now: Date): Promise<boolean> {
    return Boolean(await this.one(this.pool, numbered(SIGN_UP_SQL.usable), [tokenHash, now.toISOString()]));
  }

  async confirmSignUp(tokenHash: string, approvalTypes: readonly AccountType[], now: Date): Promise<SignUpConfirmation | null> {
    return this.transaction(async (client): Promise<SignUpConfirmation | null> => {
      const claimed = await this.one(client, numbered(SIGN_UP_SQL.claim), [now.toISOString(), tokenHash, now.toISOString()]);
      if (!claimed) return null;
      const signUp = toSignUp(claimed);
      // Two sign-ups of one address confirmed at once: the account's unique e-mail lets one create it.
      await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [signUp.email]);
      const existing = await this.one(client, 'SELECT * FROM accounts WHERE email = $1', [signUp.email]);
      const step = confirmationStep(signUp, existing ? toAccount(existing) : null, approvalTypes);
      if (step === 'existed') {
        await client.query(numbered(SIGN_UP_SQL.setStatus), ['existed', signUp.id]);
        return { outcome: 'existed', account: toAccount(existing!) };
      }
      if (step === 'awaiting_approval')
        return {
          outcome: 'awaiting_approval',
          signUp: toSignUp((await this.one(client, numbered(SIGN_UP_SQL.setStatus), ['awaiting_approval', signUp.id]))!),
        };
      return { outcome: 'created', account: await this.insertSignedUp(client, signUp, now, 'web (sign-up)') };
    });
  }

  async pendingSignUps(): Promise<SignUp[]> {
    return (await this.pool.query(numbered(SIGN_UP_SQL.pending))).rows.map(toSignUp);
  }

  async decideSignUp(id: number, approve: boolean, actor: string, now: Date): Promise<{ signUp: SignUp; account: Account | null } | null> {
    return this.transaction(async (client) => {
      const row = await this.one(client, numbered(SIGN_UP_SQL.decide), [approve ? 'approved' : 'refused', now.toISOString(), actor, id]);
      if (!row) return null;
      const signUp = toSignUp(row);
      await this.auditWith(
        client,
        { actor, action: approve ? 'sign_up.approve' : 'sign_up.refuse', subject: signUp.email, before: null, after: signUp },
        now,
      );
      if (!approve) return { signUp, account: null };
      await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [signUp.email]);
      const existing = await this.one(client, 'SELECT * FROM accounts WHERE email = $1', [signUp.email]);
      return { signUp, account: existing ? toAccount(existing) : await this.insertSignedUp(client, signUp, now, actor) };
    });
  }

  private async insertSignedUp(client: pg.PoolClient, signUp: SignUp, now: Date, actor: string): Promise<Account> {
    const account = toAccount(
      (await this.one(client, numbered(SIGN_UP_SQL.insertAccount), [
        signUp.email,
        signUp.type,
        DEFAULT_SUBMIT_LIMIT,
        now.toISOString(),
        ...signUpAccountValues(signUp),
      ]))!,
    );
    await this.auditWith(client, { actor, action: 'account.sign_up', subject: account.email, before: null, after: account }, now);
    return account;
  }

  async auditLog(limit: number): Promise<AuditRecord[]> {
    return (await this.pool.query(numbered(SIGN_UP_SQL.auditLog), [limit])).rows.map(toAuditRecord);
  }

  private async auditWith(db: Queryable, entry: AuditEntry, now: Date): Promise<void> {
    await db.query('INSERT INTO audit_log (at, actor, action, subject, before, after) VALUES ($1, $2, $3, $4, $5, $6)', [
      now.toISOString(),
      entry.actor,
      entry.action,
      entry.subject,
      JSON.stringify(entry.before ?? null),
      JSON.stringify(entry.after ?? null),
    ]);
  }

  audit(entry: AuditEntry, now: Date): Promise<void> {
    return this.auditWith(this.pool, entry, now);
  }

  async purgeExpired(now: Date, batch: number): Promise<PurgeCounts> {
    const cutoff = purgeCutoff(now);
    const counts = {} as PurgeCounts;
    for (const rule of PURGE_RULES) {
      let n = 0;
      const sql = rule.sql.replace(/\?/g, () => `$${++n}`);
      counts[rule.name] = (await this.pool.query(sql, [rule.name === 'key_forms' ? now.toISOString() : cutoff, batch])).rowCount ?? 0;
    }
    return counts;
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
