import type Database from 'better-sqlite3';
import { planBatch, type BatchState, type StoredBarcode, type StoredVote } from '../barcodes/plan-batch.ts';
import {
  barcodeStatus,
  recordStatus,
  type AdminDecision,
  type BarcodeStatus,
  type Match,
  type StatusRules,
} from '../barcodes/status-rules.ts';
import type { ItemCheck } from '../barcodes/validate-item.ts';
import type { Barcode, BarcodeKind } from '../dataset/model.ts';
import { canonicalGtin } from '../gs1/gtin.ts';
import { formatWithOffset } from '../util/dates.ts';
import { durably } from './sqlite-durably.ts';
import type { Account, AccountType, BarcodeSummary, BarcodeVote, SubmissionRecord, SubmitOutcome } from './registry.ts';

interface BarcodeRow {
  gtin: string;
  status: BarcodeStatus;
  adm_code: number | null;
  kind: BarcodeKind | null;
  units: number | null;
  admin_decision: 'approved' | 'revoked' | null;
  updated_at: string;
}

interface VoteRow {
  account_id: number;
  adm_code: number;
  kind: BarcodeKind;
  units: number;
  type: AccountType;
  counted: number;
}

const toStoredVote = (row: VoteRow): StoredVote => ({
  accountId: row.account_id,
  admCode: row.adm_code,
  kind: row.kind,
  units: row.units,
  accountType: row.type,
  counted: row.counted === 1,
});

export const adminOf = (row: {
  admin_decision: 'approved' | 'revoked' | null;
  adm_code: number | null;
  kind: BarcodeKind | null;
  units: number | null;
}): AdminDecision =>
  row.admin_decision === 'revoked'
    ? { decision: 'revoked' }
    : row.admin_decision === 'approved'
      ? { decision: 'approved', match: matchOf(row)! }
      : null;

const matchOf = (row: { adm_code: number | null; kind: BarcodeKind | null; units: number | null }): Match | null =>
  row.adm_code === null ? null : { admCode: row.adm_code, kind: row.kind!, units: row.units! };

/**
 * Submissions, votes and moderation in the SQLite registry. A barcode row caches the status
 * computed from its counted votes (status-rules.ts); every change of a vote, of a block or of an
 * administrator's decision recomputes it in the same transaction.
 */
export class SqliteBarcodes {
  private readonly s;

  constructor(
    private readonly db: Database.Database,
    private readonly consume: (accountId: number, periodStart: string, units: number, limit: number) => { allowed: boolean; used: number },
    private readonly audit: (actor: string, action: string, subject: string, before: unknown, after: unknown, now: Date) => void,
  ) {
    this.s = {
      barcode: db.prepare('SELECT * FROM barcodes WHERE gtin = ?'),
      upsertVote: db.prepare(
        `INSERT INTO votes (gtin, account_id, adm_code, kind, units, contributor_ref, barcode_as_sent, submitted_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (gtin, account_id) DO UPDATE SET adm_code = excluded.adm_code, kind = excluded.kind, units = excluded.units,
           contributor_ref = excluded.contributor_ref, barcode_as_sent = excluded.barcode_as_sent, submitted_at = excluded.submitted_at`,
      ),
      barcodesIn: db.prepare('SELECT * FROM barcodes WHERE gtin IN (SELECT value FROM json_each(?))'),
      votesIn: db.prepare(
        `SELECT v.gtin, v.account_id, v.adm_code, v.kind, v.units, a.type,
           (a.blocked = 0 AND NOT EXISTS (SELECT 1 FROM blocked_contributors b WHERE b.account_id = v.account_id AND b.contributor_ref = v.contributor_ref)) AS counted
         FROM votes v JOIN accounts a ON a.id = v.account_id WHERE v.gtin IN (SELECT value FROM json_each(?))`,
      ),
      blockedRefsIn: db.prepare(
        'SELECT contributor_ref FROM blocked_contributors WHERE account_id = ? AND contributor_ref IN (SELECT value FROM json_each(?))',
      ),
      allVotes: db.prepare(
        `SELECT v.account_id, v.adm_code, v.kind, v.units, a.type,
           (a.blocked = 0 AND NOT EXISTS (SELECT 1 FROM blocked_contributors b WHERE b.account_id = v.account_id AND b.contributor_ref = v.contributor_ref)) AS counted
         FROM votes v JOIN accounts a ON a.id = v.account_id WHERE v.gtin = ?`,
      ),
      saveBarcode: db.prepare(
        `INSERT INTO barcodes (gtin, status, adm_code, kind, units, admin_decision, updated_at) VALUES (@gtin, @status, @adm_code, @kind, @units, @admin_decision, @updated_at)
         ON CONFLICT (gtin) DO UPDATE SET status = excluded.status, adm_code = excluded.adm_code, kind = excluded.kind, units = excluded.units,
           admin_decision = excluded.admin_decision, updated_at = excluded.updated_at`,
      ),
      contributorBlocked: db.prepare('SELECT 1 FROM blocked_contributors WHERE account_id = ? AND contributor_ref = ?'),
      mine: db.prepare(
        `SELECT v.barcode_as_sent, v.adm_code, v.kind, v.units, v.contributor_ref, v.submitted_at, b.status, b.adm_code AS b_adm_code, b.kind AS b_kind, b.units AS b_units
         FROM votes v JOIN barcodes b ON b.gtin = v.gtin WHERE v.account_id = ? ORDER BY v.submitted_at DESC, v.gtin LIMIT ? OFFSET ?`,
      ),
      summaries: db.prepare(
        'SELECT b.*, (SELECT count(*) FROM votes v WHERE v.gtin = b.gtin) AS votes FROM barcodes b WHERE @status IS NULL OR b.status = @status ORDER BY b.gtin',
      ),
      votesOf: db.prepare(
        `SELECT v.*, a.email, a.type, a.blocked, EXISTS (SELECT 1 FROM blocked_contributors b WHERE b.account_id = v.account_id AND b.contributor_ref = v.contributor_ref) AS ref_blocked
         FROM votes v JOIN accounts a ON a.id = v.account_id WHERE v.gtin = ? ORDER BY v.submitted_at, a.email`,
      ),
      gtinsOfContributor: db.prepare('SELECT gtin FROM votes WHERE account_id = ? AND contributor_ref = ?'),
      gtinsOfAccount: db.prepare('SELECT gtin FROM votes WHERE account_id = ?'),
      blockContributor: db.prepare('INSERT OR IGNORE INTO blocked_contributors (account_id, contributor_ref, blocked_at) VALUES (?, ?, ?)'),
      unblockContributor: db.prepare('DELETE FROM blocked_contributors WHERE account_id = ? AND contributor_ref = ?'),
      approved: db.prepare("SELECT gtin, adm_code, kind, units FROM barcodes WHERE status = 'approved' ORDER BY gtin"),
    };
  }

  /** Recomputes and stores a barcode's status from its counted votes and the administrator's decision. */
  recompute(gtin: string, now: Date, rules: StatusRules, decision?: AdminDecision): { status: BarcodeStatus; match: Match | null } {
    const row = this.s.barcode.get(gtin) as BarcodeRow | undefined;
    const admin: AdminDecision = decision !== undefined ? decision : row ? adminOf(row) : null;
    const votes = (this.s.allVotes.all(gtin) as VoteRow[]).map(toStoredVote).filter((vote) => vote.counted);
    const result = barcodeStatus(votes, admin, rules);
    this.save(gtin, { ...result, admin }, now.toISOString());
    return result;
  }

  submit(input: { account: Account; periodStart: string; checks: ItemCheck[]; rules: StatusRules }, now: Date): SubmitOutcome {
    return durably(this.db, () =>
      this.db
        .transaction((): SubmitOutcome => {
          const { account, checks, rules } = input;
          const quota = this.consume(account.id, input.periodStart, checks.length, account.submitLimit);
          if (!quota.allowed) return { allowed: false, used: quota.used };
          const plan = planBatch(account, checks, this.readState(account.id, checks), rules);
          const at = now.toISOString();
          for (const vote of plan.votes)
            this.s.upsertVote.run(
              vote.gtin14,
              account.id,
              vote.admCode,
              vote.kind,
              vote.units,
              vote.contributorRef,
              vote.barcodeAsSent,
              at,
            );
          for (const barcode of plan.barcodes) this.save(barcode.gtin14, barcode, at);
          return { allowed: true, used: quota.used, results: plan.results };
        })
        .immediate(),
    );
  }

  /** The state a batch needs, in three queries: the barcodes it names, all their votes, the account's blocked contributors. */
  private readState(accountId: number, checks: ItemCheck[]): BatchState {
    const candidates = checks.flatMap((check) => (check.ok ? [check.candidate] : []));
    const gtins = JSON.stringify([...new Set(candidates.map((c) => c.gtin14))]);
    const refs = JSON.stringify([...new Set(candidates.flatMap((c) => (c.contributorRef === null ? [] : [c.contributorRef])))]);
    const state: BatchState = { barcodes: new Map(), votes: new Map(candidates.map((c) => [c.gtin14, []])), blockedRefs: new Set() };
    for (const row of this.s.barcodesIn.all(gtins) as BarcodeRow[])
      state.barcodes.set(row.gtin, { status: row.status, match: matchOf(row), admin: adminOf(row) });
    for (const row of this.s.votesIn.all(gtins) as (VoteRow & { gtin: string })[]) state.votes.get(row.gtin)!.push(toStoredVote(row));
    for (const row of this.s.blockedRefsIn.all(accountId, refs) as { contributor_ref: string }[])
      state.blockedRefs.add(row.contributor_ref);
    return state;
  }

  private save(gtin: string, barcode: StoredBarcode, at: string): void {
    this.s.saveBarcode.run({
      gtin,
      status: barcode.status,
      adm_code: barcode.match?.admCode ?? null,
      kind: barcode.match?.kind ?? null,
      units: barcode.match?.units ?? null,
      admin_decision: barcode.admin?.decision ?? null,
      updated_at: at,
    });
  }

  mine(accountId: number, limit: number, offset: number): SubmissionRecord[] {
    type Row = {
      barcode_as_sent: string;
      adm_code: number;
      kind: BarcodeKind;
      units: number;
      contributor_ref: string | null;
      submitted_at: string;
      status: BarcodeStatus;
      b_adm_code: number | null;
      b_kind: BarcodeKind | null;
      b_units: number | null;
    };
    return (this.s.mine.all(accountId, limit, offset) as Row[]).map((row) => {
      const submitted = { admCode: row.adm_code, kind: row.kind, units: row.units };
      return {
        barcode: row.barcode_as_sent,
        ...submitted,
        contributorRef: row.contributor_ref,
        submittedAt: formatWithOffset(new Date(row.submitted_at)),
        status: recordStatus(submitted, {
          status: row.status,
          match: matchOf({ adm_code: row.b_adm_code, kind: row.b_kind, units: row.b_units }),
        }),
      };
    });
  }

  list(status?: BarcodeStatus): BarcodeSummary[] {
    return (this.s.summaries.all({ status: status ?? null }) as (BarcodeRow & { votes: number })[]).map(toSummary);
  }

  votes(gtin: string): { summary: BarcodeSummary | null; votes: BarcodeVote[] } {
    const row = this.s.barcode.get(gtin) as BarcodeRow | undefined;
    const votes = (this.s.votesOf.all(gtin) as Record<string, unknown>[]).map((v): BarcodeVote => ({
      email: String(v.email),
      accountType: v.type as AccountType,
      admCode: Number(v.adm_code),
      kind: v.kind as BarcodeKind,
      units: Number(v.units),
      contributorRef: (v.contributor_ref as string | null) ?? null,
      barcodeAsSent: String(v.barcode_as_sent),
      submittedAt: String(v.submitted_at),
      counted: v.blocked === 0 && v.ref_blocked === 0,
    }));
    return { summary: row ? toSummary({ ...row, votes: votes.length }) : null, votes };
  }

  decide(gtin: string, decision: Exclude<AdminDecision, null>, actor: string, now: Date, rules: StatusRules): BarcodeSummary {
    return this.db
      .transaction(() => {
        const before = this.s.barcode.get(gtin) ?? null;
        this.recompute(gtin, now, rules, decision);
        const after = this.votes(gtin).summary!;
        this.audit(actor, decision.decision === 'approved' ? 'barcode.approve' : 'barcode.revoke', canonicalGtin(gtin), before, after, now);
        return after;
      })
      .immediate();
  }

  setContributorBlocked(accountId: number, ref: string, blocked: boolean, actor: string, now: Date, rules: StatusRules): void {
    this.db
      .transaction(() => {
        const wasBlocked = Boolean(this.s.contributorBlocked.get(accountId, ref));
        if (blocked) this.s.blockContributor.run(accountId, ref, now.toISOString());
        else this.s.unblockContributor.run(accountId, ref);
        for (const { gtin } of this.s.gtinsOfContributor.all(accountId, ref) as { gtin: string }[]) this.recompute(gtin, now, rules);
        this.audit(
          actor,
          blocked ? 'contributor.block' : 'contributor.unblock',
          `${accountId}/${ref}`,
          { blocked: wasBlocked },
          { blocked },
          now,
        );
      })
      .immediate();
  }

  /** After an account is blocked or unblocked: its votes' barcodes get their status again. */
  recomputeAccount(accountId: number, now: Date, rules: StatusRules): void {
    for (const { gtin } of this.s.gtinsOfAccount.all(accountId) as { gtin: string }[]) this.recompute(gtin, now, rules);
  }

  approved(): Barcode[] {
    return (this.s.approved.all() as { gtin: string; adm_code: number; kind: BarcodeKind; units: number }[]).map((row) => ({
      barcode: canonicalGtin(row.gtin),
      admCode: row.adm_code,
      kind: row.kind,
      units: row.units,
    }));
  }
}

function toSummary(row: BarcodeRow & { votes: number }): BarcodeSummary {
  return {
    gtin14: row.gtin,
    barcode: canonicalGtin(row.gtin),
    status: row.status,
    match: matchOf(row),
    adminDecision: row.admin_decision,
    votes: row.votes,
    updatedAt: row.updated_at,
  };
}
