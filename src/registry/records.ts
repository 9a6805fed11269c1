import type { BarcodeStatus, Match, RecordStatus } from '../barcodes/status-rules.ts';
import type { BarcodeKind } from '../dataset/model.ts';

import type { AccountType } from '../barcodes/account-types.ts';
import type { SubmissionResult } from '../barcodes/plan-batch.ts';

/** The registry's records, as its methods take and return them. */
export { ACCOUNT_TYPES, type AccountType } from '../barcodes/account-types.ts';
export type { SubmissionResult } from '../barcodes/plan-batch.ts';

export const DEFAULT_SUBMIT_LIMIT = 100;
export const READ_LIMIT = 10;
export const MAX_ACTIVE_KEYS = 3;
/** The largest whole number the registry stores: its INTEGER columns are PostgreSQL's 4-byte int (SQLite's are wider). */
export const MAX_STORED_INTEGER = 2_147_483_647;

export interface Account {
  id: number;
  email: string;
  type: AccountType;
  blocked: boolean;
  submitLimit: number;
  createdAt: string;
  /** May use the website's moderation desk (set by `tariff accounts admin`). */
  admin: boolean;
  /** As given at sign-up; null for accounts the operator created. */
  organisation: string | null;
  /** The version of the usage rules the account accepted, and when (null: created by the operator). */
  rulesVersion: string | null;
  rulesAcceptedAt: string | null;
  /**
   * From when its votes count: at creation for an account the operator created or an
   * administrator approved; null for a self-service account not yet vetted (docs/moderation.md).
   */
  vettedAt: string | null;
}

export type SignUpStatus = 'unconfirmed' | 'awaiting_approval' | 'approved' | 'refused' | 'created' | 'existed';

/** A sign-up request from the website: the account exists only once its link is confirmed (and, by policy, approved). */
export interface SignUp {
  id: number;
  email: string;
  type: AccountType;
  organisation: string;
  rulesVersion: string;
  /** When the form was sent: when the usage rules were accepted. */
  createdAt: string;
  status: SignUpStatus;
  confirmedAt: string | null;
  decidedAt: string | null;
  decidedBy: string | null;
}

/** What the website stores when the sign-up form is sent: the link's token only as its SHA-256. */
export interface SignUpRequest {
  email: string;
  type: AccountType;
  organisation: string;
  rulesVersion: string;
  tokenHash: string;
  expiresAt: Date;
}

/** What confirming a sign-up link did. */
export type SignUpConfirmation =
  | { outcome: 'created'; account: Account }
  | { outcome: 'awaiting_approval'; signUp: SignUp }
  /** The address got an account meanwhile (another sign-up, or the operator): nothing created. */
  | { outcome: 'existed'; account: Account };

export interface AuditRecord extends AuditEntry {
  id: number;
  at: string;
}

export interface ApiKeyRecord {
  id: number;
  accountId: number;
  /** The first characters of the key, to recognise it; never enough to use it. */
  prefix: string;
  label: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

/** Who a valid key belongs to. */
export interface Principal {
  account: Account;
  keyId: number;
}

export type Counter = 'read' | 'submit';

/** The result of a check-and-increment on a counter. */
export interface Consumption {
  allowed: boolean;
  /** Units used in the period after this call (unchanged when refused). */
  used: number;
}

export type SubmitOutcome = { allowed: false; used: number } | { allowed: true; used: number; results: SubmissionResult[] };

export interface SubmissionRecord {
  barcode: string;
  admCode: number;
  kind: BarcodeKind;
  units: number;
  contributorRef: string | null;
  submittedAt: string;
  status: RecordStatus;
}

export interface BarcodeSummary {
  gtin14: string;
  barcode: string;
  status: BarcodeStatus;
  match: Match | null;
  adminDecision: 'approved' | 'revoked' | null;
  votes: number;
  updatedAt: string;
}

export interface BarcodeVote extends Match {
  email: string;
  accountType: AccountType;
  contributorRef: string | null;
  barcodeAsSent: string;
  submittedAt: string;
  /** False when the vote is not counted on its own: see `notCounted`. */
  counted: boolean;
  /**
   * Why it does not count: its account or contributor is `blocked`; it is the `same_organisation`
   * as an account that voted first (`sameOrganisationAs`), whose vote stands for both; or its
   * organisation's accounts voted for different matches (`organisation_disagrees`); or its account
   * signed up by itself and is not yet vetted (`not_vetted`: it counts from `countsFrom`).
   */
  notCounted: 'blocked' | 'not_vetted' | 'same_organisation' | 'organisation_disagrees' | null;
  sameOrganisationAs: string | null;
  /** For a `not_vetted` vote: when its account's votes start counting, unless it is vetted earlier. */
  countsFrom: string | null;
}

export interface WebSession {
  account: Account;
  csrfToken: string;
  expiresAt: string;
}

export interface AuditEntry {
  actor: string;
  action: string;
  subject: string;
  before: unknown;
  after: unknown;
}
