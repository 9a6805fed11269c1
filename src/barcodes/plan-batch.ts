import type { AccountType } from './account-types.ts';
import { identityKeys } from './organisation-identity.ts';
import { barcodeStatus, sameMatch, type AdminDecision, type BarcodeStatus, type Match, type StatusRules } from './status-rules.ts';
import type { ItemCheck, RejectionReason } from './validate-item.ts';

/** What became of one item of a batch: recorded, already so, or refused (and why), with the barcode's status. */
export interface SubmissionResult {
  index: number;
  barcode: string;
  outcome: 'accepted' | 'unchanged' | 'rejected';
  reason: RejectionReason | null;
  status: BarcodeStatus | null;
}

/** A barcode as stored: its computed status and match, and the administrator's decision if any. */
export interface StoredBarcode {
  status: BarcodeStatus;
  match: Match | null;
  admin: AdminDecision;
}

/** A vote as stored, with whether it counts (its account and contributor are not blocked). */
export interface StoredVote extends Match {
  accountId: number;
  accountType: AccountType;
  /** The keys tying the account to an organisation: votes count once per organisation. */
  identities: readonly string[];
  counted: boolean;
}

/** What a batch needs to know about the barcodes it names, read in its transaction. */
export interface BatchState {
  barcodes: Map<string, StoredBarcode>;
  votes: Map<string, StoredVote[]>;
  /** The submitting account's blocked contributor references. */
  blockedRefs: Set<string>;
}

export interface VoteWrite extends Match {
  gtin14: string;
  contributorRef: string | null;
  barcodeAsSent: string;
}

export interface BatchPlan {
  results: SubmissionResult[];
  /**
   * The votes to store (the last one per barcode) and the barcodes whose status to store: new
   * ones and those whose status or match changed (a vote that changes neither rewrites nothing,
   * so a barcode's `updated_at` is when its status or match last changed).
   */
  votes: VoteWrite[];
  barcodes: (StoredBarcode & { gtin14: string })[];
}

const sameOrNone = (a: Match | null, b: Match | null) => (a === null || b === null ? a === b : sameMatch(a, b));

/**
 * Decides a whole batch in memory from the state read at the start of its transaction: each item
 * in request order (a later item sees the earlier ones), then the writes that make it so. The
 * registry backends only read the state and apply the plan, so the rules live here once.
 */
export function planBatch(
  account: { id: number; type: AccountType; email: string; organisation: string | null; vettedAt: string | null },
  checks: ItemCheck[],
  state: BatchState,
  rules: StatusRules,
): BatchPlan {
  const votes = new Map<string, VoteWrite>();
  const before = new Map(state.barcodes);
  const touched = new Set<string>();
  const results = checks.map((check, index): SubmissionResult => {
    if (!check.ok) return { index, barcode: check.barcode, outcome: 'rejected', reason: check.reason, status: null };
    const c = check.candidate;
    const rejected = (reason: SubmissionResult['reason']): SubmissionResult => ({
      index,
      barcode: c.barcode,
      outcome: 'rejected',
      reason,
      status: null,
    });
    if (c.contributorRef !== null && state.blockedRefs.has(c.contributorRef)) return rejected('contributor_blocked');
    const barcode = state.barcodes.get(c.gtin14);
    if (barcode?.status === 'revoked') return rejected('barcode_revoked');
    const existing = state.votes.get(c.gtin14) ?? [];
    const mine = existing.find((vote) => vote.accountId === account.id);
    if (barcode && mine && sameMatch(mine, c))
      return { index, barcode: c.barcode, outcome: 'unchanged', reason: null, status: barcode.status };

    const match = { admCode: c.admCode, kind: c.kind, units: c.units };
    const updated = [
      ...existing.filter((vote) => vote.accountId !== account.id),
      { ...match, accountId: account.id, accountType: account.type, identities: identityKeys(account), counted: account.vettedAt !== null },
    ];
    state.votes.set(c.gtin14, updated);
    const admin = barcode?.admin ?? null;
    const computed = barcodeStatus(
      updated.filter((vote) => vote.counted),
      admin,
      rules,
    );
    const stored = { status: computed.status, match: computed.match, admin };
    state.barcodes.set(c.gtin14, stored);
    votes.set(c.gtin14, { gtin14: c.gtin14, ...match, contributorRef: c.contributorRef, barcodeAsSent: c.barcode });
    touched.add(c.gtin14);
    return { index, barcode: c.barcode, outcome: 'accepted', reason: null, status: computed.status };
  });
  const barcodes = [...touched].flatMap((gtin14) => {
    const stored = state.barcodes.get(gtin14)!;
    const was = before.get(gtin14);
    return was && was.status === stored.status && sameOrNone(was.match, stored.match) ? [] : [{ gtin14, ...stored }];
  });
  return { results, votes: [...votes.values()], barcodes };
}
