import { identityKeys } from '../../barcodes/organisation-identity.ts';
import {
  organisationGroups,
  vettedFrom,
  type AdminDecision,
  type BarcodeStatus,
  type Match,
  type StatusRules,
} from '../../barcodes/status-rules.ts';
import type { Barcode, BarcodeKind } from '../../dataset/model.ts';
import { canonicalGtin } from '../../gs1/gtin.ts';
import { writeAudit } from './audit.ts';
import { recomputeBarcodes } from './barcode-state.ts';
import type { AccountType, BarcodeSummary, BarcodeVote } from '../records.ts';
import { toSummary } from '../rows.ts';
import type { Queries, Store } from '../store.ts';

async function votesOn(db: Queries, gtin14: string, rules: StatusRules): Promise<{ summary: BarcodeSummary | null; votes: BarcodeVote[] }> {
  const row = await db.one('SELECT * FROM barcodes WHERE gtin = ?', [gtin14]);
  const rows = await db.all(
    `SELECT v.*, a.email, a.organisation, a.type, a.blocked, a.created_at AS account_created_at, a.vetted_at, EXISTS (
       SELECT 1 FROM blocked_contributors b WHERE b.account_id = v.account_id AND b.contributor_ref = v.contributor_ref) AS ref_blocked
     FROM votes v JOIN accounts a ON a.id = v.account_id WHERE v.gtin = ? ORDER BY v.submitted_at, a.email`,
    [gtin14],
  );
  const votes = rows.map((v): BarcodeVote & { identities: string[] } => {
    const blocked = Boolean(v.blocked) || Boolean(v.ref_blocked);
    const vetted = v.vetted_at !== null;
    return {
      email: String(v.email),
      accountType: v.type as AccountType,
      admCode: Number(v.adm_code),
      kind: v.kind as BarcodeKind,
      units: Number(v.units),
      contributorRef: (v.contributor_ref as string | null) ?? null,
      barcodeAsSent: String(v.barcode_as_sent),
      submittedAt: String(v.submitted_at),
      counted: !blocked && vetted,
      notCounted: blocked ? 'blocked' : vetted ? null : 'not_vetted',
      sameOrganisationAs: null,
      countsFrom: vetted ? null : vettedFrom(String(v.account_created_at), rules).toISOString(),
      identities: identityKeys({ email: String(v.email), organisation: (v.organisation as string | null) ?? null }),
    };
  });
  explainOrganisations(votes.filter((vote) => vote.counted));
  return { summary: row ? toSummary({ ...row, votes: votes.length }) : null, votes: votes.map(({ identities: _, ...vote }) => vote) };
}

/**
 * Marks, for the desk, the votes that count only through their organisation (the status rules'
 * organisationGroups): the first of an agreeing organisation counts, the others are the same
 * organisation's; none of a disagreeing one counts. `votes` are in the order they were submitted.
 */
function explainOrganisations(votes: (BarcodeVote & { identities: string[] })[]): void {
  for (const group of organisationGroups(votes)) {
    const [first, ...others] = group.votes;
    for (const vote of group.agree ? others : group.votes) {
      vote.counted = false;
      vote.notCounted = group.agree ? 'same_organisation' : 'organisation_disagrees';
      vote.sameOrganisationAs = group.agree ? first!.email : null;
    }
  }
}

/**
 * Barcodes as moderation sees them: their votes, approval, revocation, blocked contributors, the
 * approved matches. Part of the Registry (registry.ts).
 */
export interface ModerationRegistry {
  listBarcodes(status?: BarcodeStatus): Promise<BarcodeSummary[]>;
  barcodeVotes(gtin14: string): Promise<{ summary: BarcodeSummary | null; votes: BarcodeVote[] }>;
  /** The administrator fixes the match of a barcode, whatever the votes say. */
  approveBarcode(gtin14: string, match: Match, actor: string, now: Date): Promise<BarcodeSummary>;
  /** The administrator revokes a barcode: no more submissions, out of the next release. */
  revokeBarcode(gtin14: string, actor: string, now: Date): Promise<BarcodeSummary>;
  /** Blocks (or unblocks) an integration's contributor: its votes stop counting, its submissions are refused. */
  setContributorBlocked(accountId: number, contributorRef: string, blocked: boolean, actor: string, now: Date): Promise<void>;
  /** The approved matches, for the next release. */
  approvedBarcodes(): Promise<Barcode[]>;
}

/**
 * Moderation: the barcodes and their votes, the administrator's decisions (which override the
 * votes), blocking an integration's point of sale, and the approved matches for the next release.
 * Every decision recomputes the barcodes it touches and is audited, in one durable transaction.
 */
export function moderationRules(store: Store, statusRules: StatusRules): ModerationRegistry {
  const decide = (gtin14: string, decision: Exclude<AdminDecision, null>, actor: string, now: Date) =>
    store.transaction(
      async (tx) => {
        await tx.lock([`barcode:${gtin14}`]);
        const before = (await tx.one('SELECT * FROM barcodes WHERE gtin = ?', [gtin14])) ?? null;
        await recomputeBarcodes(tx, [gtin14], now, statusRules, decision);
        const after = (await votesOn(tx, gtin14, statusRules)).summary!;
        const action = decision.decision === 'approved' ? 'barcode.approve' : 'barcode.revoke';
        await writeAudit(tx, { actor, action, subject: canonicalGtin(gtin14), before, after }, now);
        return after;
      },
      { durable: true },
    );

  return {
    listBarcodes: async (status?: BarcodeStatus): Promise<BarcodeSummary[]> =>
      (
        await store.all(
          `SELECT b.*, (SELECT count(*) FROM votes v WHERE v.gtin = b.gtin) AS votes FROM barcodes b
           WHERE CAST(? AS TEXT) IS NULL OR b.status = ? ORDER BY b.gtin`,
          [status ?? null, status ?? null],
        )
      ).map(toSummary),

    barcodeVotes: (gtin14: string) => votesOn(store, gtin14, statusRules),

    approveBarcode: (gtin14: string, match: Match, actor: string, now: Date) => decide(gtin14, { decision: 'approved', match }, actor, now),

    revokeBarcode: (gtin14: string, actor: string, now: Date) => decide(gtin14, { decision: 'revoked' }, actor, now),

    setContributorBlocked(accountId: number, ref: string, blocked: boolean, actor: string, now: Date): Promise<void> {
      return store.transaction(
        async (tx) => {
          const was = Boolean(
            await tx.one('SELECT 1 FROM blocked_contributors WHERE account_id = ? AND contributor_ref = ?', [accountId, ref]),
          );
          if (blocked)
            await tx.run(
              'INSERT INTO blocked_contributors (account_id, contributor_ref, blocked_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING',
              [accountId, ref, now.toISOString()],
            );
          else await tx.run('DELETE FROM blocked_contributors WHERE account_id = ? AND contributor_ref = ?', [accountId, ref]);
          const votes = await tx.all('SELECT gtin FROM votes WHERE account_id = ? AND contributor_ref = ?', [accountId, ref]);
          await recomputeBarcodes(
            tx,
            votes.map((vote) => String(vote.gtin)),
            now,
            statusRules,
          );
          const action = blocked ? 'contributor.block' : 'contributor.unblock';
          await writeAudit(tx, { actor, action, subject: `${accountId}/${ref}`, before: { blocked: was }, after: { blocked } }, now);
        },
        { durable: true },
      );
    },

    approvedBarcodes: async (): Promise<Barcode[]> =>
      (await store.all("SELECT gtin, adm_code, kind, units FROM barcodes WHERE status = 'approved' ORDER BY gtin")).map((row) => ({
        barcode: canonicalGtin(String(row.gtin)),
        admCode: Number(row.adm_code),
        kind: row.kind as BarcodeKind,
        units: Number(row.units),
      })),
  };
}
