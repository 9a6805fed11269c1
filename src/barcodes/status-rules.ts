import type { BarcodeKind } from '../dataset/model.ts';
import type { AccountType } from './account-types.ts';

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
  /** The keys tying the voter to an organisation (organisation-identity.ts); none: an organisation of its own. */
  identities?: readonly string[];
}

/** An administrator's decision, which overrides the votes until the administrator changes it. */
export type AdminDecision = { decision: 'approved'; match: Match } | { decision: 'revoked' } | null;

/** The tunable part of the rules (docs/moderation.md). */
export interface StatusRules {
  /** Weight of agreeing votes needed to approve (default 2: two distinct accounts). */
  quorum: number;
  /** Weight of one account's vote, by account type (default 1 for every type). */
  weights: Record<AccountType, number>;
  /**
   * Days a self-service account waits before its votes count (default 7; 0: at once). Accounts the
   * operator created or an administrator approved count at once (docs/moderation.md).
   */
  vettingDays: number;
}

/** How long a self-service account waits before its votes count. */
export const vettingWaitMs = (rules: Pick<StatusRules, 'vettingDays'>): number => rules.vettingDays * 86_400_000;

/** When a self-service account created at `createdAt` starts counting, by the rules' vetting days. */
export function vettedFrom(createdAt: string, rules: Pick<StatusRules, 'vettingDays'>): Date {
  return new Date(Date.parse(createdAt) + vettingWaitMs(rules));
}

export const sameMatch = (a: Match, b: Match) => a.admCode === b.admCode && a.kind === b.kind && a.units === b.units;

/**
 * The votes grouped by organisation: accounts sharing a mailbox or an organisation name (directly
 * or through another account) are one group. A group counts as one vote, with the largest weight
 * among its accounts, when its accounts agree; a group that disagrees with itself does not count,
 * so one organisation can neither approve alone nor put a barcode in conflict. Order-independent.
 */
export function organisationGroups<V extends Vote>(votes: readonly V[]): { votes: V[]; agree: boolean }[] {
  const owner = new Map<string, number>();
  const parent = votes.map((_, i) => i);
  const root = (i: number): number => (parent[i] === i ? i : (parent[i] = root(parent[i]!)));
  let shared = false;
  votes.forEach((vote, i) => {
    for (const key of vote.identities ?? []) {
      const seen = owner.get(key);
      if (seen === undefined) owner.set(key, i);
      else if (root(i) !== root(seen)) {
        parent[root(i)] = root(seen);
        shared = true;
      }
    }
  });
  // The usual case, every account its own organisation, costs one pass (a batch decides hundreds of barcodes).
  if (!shared) return votes.map((vote) => ({ votes: [vote], agree: true }));
  const groups = new Map<number, V[]>();
  votes.forEach((vote, i) => {
    const group = groups.get(root(i));
    if (group) group.push(vote);
    else groups.set(root(i), [vote]);
  });
  return [...groups.values()].map((group) => ({ votes: group, agree: group.every((vote) => sameMatch(vote, group[0]!)) }));
}

/**
 * A barcode's status from its votes (one per account, the latest) and the administrator's decision:
 * - revoked by the administrator → `revoked`; approved by the administrator → `approved` (their match);
 * - the votes count by organisation (organisationGroups): one per agreeing organisation;
 * - organisations voting for more than one match → `conflict`;
 * - all for one match with a total weight of at least the quorum → `approved` (that match);
 * - all for one match but less weight (or no counted vote) → `to_confirm`.
 * Depends only on the set of votes, never on their order.
 */
export function barcodeStatus(votes: Vote[], admin: AdminDecision, rules: StatusRules): { status: BarcodeStatus; match: Match | null } {
  if (admin?.decision === 'revoked') return { status: 'revoked', match: null };
  if (admin?.decision === 'approved') return { status: 'approved', match: admin.match };
  const organisations = organisationGroups(votes)
    .filter((group) => group.agree)
    .map((group) => ({ match: group.votes[0]!, weight: heaviest(group.votes, rules) }));
  const first = organisations[0]?.match;
  if (!first) return { status: 'to_confirm', match: null };
  if (organisations.some(({ match }) => !sameMatch(match, first))) return { status: 'conflict', match: null };
  const weight = organisations.reduce((sum, { weight }) => sum + weight, 0);
  const match = { admCode: first.admCode, kind: first.kind, units: first.units };
  return weight >= rules.quorum ? { status: 'approved', match } : { status: 'to_confirm', match };
}

/** The largest weight among one organisation's votes. */
function heaviest(votes: readonly Vote[], rules: StatusRules): number {
  let weight = 0;
  for (const vote of votes) weight = Math.max(weight, rules.weights[vote.accountType]);
  return weight;
}

/** The status of one account's submission: `outvoted` when the barcode was approved with another match. */
export function recordStatus(submitted: Match, barcode: { status: BarcodeStatus; match: Match | null }): RecordStatus {
  if (barcode.status === 'approved' && barcode.match && !sameMatch(barcode.match, submitted)) return 'outvoted';
  return barcode.status;
}
