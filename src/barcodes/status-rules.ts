import type { BarcodeKind } from '../dataset/model.ts';
import type { AccountType } from '../registry/registry.ts';

export type BarcodeStatus = 'to_confirm' | 'approved' | 'conflict' | 'revoked';
export type RecordStatus = BarcodeStatus | 'outvoted';

/** What a vote proposes: the barcode is this many units of that tariff code. */
export interface Match {
  admCode: number;
  kind: BarcodeKind;
  units: number;
}

export interface Vote extends Match {
  accountType: AccountType;
}

/** An administrator's decision, which overrides the votes until the administrator changes it. */
export type AdminDecision = { decision: 'approved'; match: Match } | { decision: 'revoked' } | null;

/** The tunable part of the rules (docs/moderation.md). */
export interface StatusRules {
  /** Weight of agreeing votes needed to approve (default 2: two distinct accounts). */
  quorum: number;
  /** Weight of one account's vote, by account type (default 1 for every type). */
  weights: Record<AccountType, number>;
}

export const DEFAULT_RULES: StatusRules = { quorum: 2, weights: { User: 1, Supplier: 1, Integration: 1 } };

export const sameMatch = (a: Match, b: Match) => a.admCode === b.admCode && a.kind === b.kind && a.units === b.units;

/**
 * A barcode's status from its votes (one per account, the latest) and the administrator's decision:
 * - revoked by the administrator → `revoked`; approved by the administrator → `approved` (their match);
 * - otherwise, votes for more than one match → `conflict`;
 * - all votes for one match with a total weight of at least the quorum → `approved` (that match);
 * - all for one match but less weight (or no counted vote) → `to_confirm`.
 * Depends only on the set of votes, never on their order.
 */
export function barcodeStatus(votes: Vote[], admin: AdminDecision, rules: StatusRules): { status: BarcodeStatus; match: Match | null } {
  if (admin?.decision === 'revoked') return { status: 'revoked', match: null };
  if (admin?.decision === 'approved') return { status: 'approved', match: admin.match };
  const first = votes[0];
  if (!first) return { status: 'to_confirm', match: null };
  if (votes.some((vote) => !sameMatch(vote, first))) return { status: 'conflict', match: null };
  const weight = votes.reduce((sum, vote) => sum + rules.weights[vote.accountType], 0);
  const match = { admCode: first.admCode, kind: first.kind, units: first.units };
  return weight >= rules.quorum ? { status: 'approved', match } : { status: 'to_confirm', match };
}

/** The status of one account's submission: `outvoted` when the barcode was approved with another match. */
export function recordStatus(submitted: Match, barcode: { status: BarcodeStatus; match: Match | null }): RecordStatus {
  if (barcode.status === 'approved' && barcode.match && !sameMatch(barcode.match, submitted)) return 'outvoted';
  return barcode.status;
}
