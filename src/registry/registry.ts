import type { BarcodeStatus, Match } from '../barcodes/status-rules.ts';
import type { ItemCheck } from '../barcodes/validate-item.ts';
import type { Barcode } from '../dataset/model.ts';
import type { PurgeCounts } from './purge-rules.ts';
import type { Authenticate, PoolUse } from './store.ts';
import type {
  Account,
  AccountType,
  ApiKeyRecord,
  AuditEntry,
  AuditRecord,
  BarcodeSummary,
  BarcodeVote,
  Consumption,
  Counter,
  SignUp,
  SignUpConfirmation,
  SignUpRequest,
  SubmissionRecord,
  SubmitOutcome,
  WebSession,
} from './records.ts';

export * from './records.ts';

/**
 * The registry of accounts, API keys, counters, votes, sessions and the audit log. Its rules are
 * written once over a store (store.ts) of either engine, SQLite for one machine or PostgreSQL for
 * several proxy instances: every check-and-change is atomic in the database itself, never a read
 * in this process followed by a write.
 *
 * @example
 *   const registry = await openRegistry({ dataDir: './var', rules: loadRules(settings) });
 *   const principal = await registry.authenticate(fingerprintOf(key), new Date());
 */
export interface Registry {
  createAccount(input: { email: string; type: AccountType; submitLimit?: number }, now: Date): Promise<Account>;
  /** Makes an account an administrator of the website's moderation desk, or no longer one. */
  setAdmin(email: string, admin: boolean, actor: string, now: Date): Promise<Account>;
  listAccounts(): Promise<Account[]>;
  findAccount(email: string): Promise<Account | null>;
  /** Blocks or unblocks an account: its keys stop (or resume) working and its votes stop (or resume) counting. */
  setBlocked(email: string, blocked: boolean, actor: string, now: Date): Promise<Account>;
  setSubmitLimit(email: string, limit: number, actor: string, now: Date): Promise<Account>;
  /** Vets a self-service account now: its votes count from now on (docs/moderation.md). */
  vetAccount(email: string, actor: string, now: Date): Promise<Account>;
  /** Vets the self-service accounts that waited the vetting days unblocked; their addresses. */
  vetAccountsOfAge(now: Date): Promise<string[]>;

  /** Stores a new key's fingerprint; refuses a fourth active key (error code `too_many_keys`). */
  addKey(accountId: number, key: { fingerprint: string; prefix: string; label: string }, now: Date): Promise<ApiKeyRecord>;
  listKeys(accountId: number, options?: { includeRevoked?: boolean }): Promise<ApiKeyRecord[]>;
  /** Revokes the active key whose prefix starts with `prefix`; refuses an ambiguous prefix. */
  revokeKey(accountId: number, prefix: string, actor: string, now: Date): Promise<ApiKeyRecord>;

  /**
   * The account of an active key with this fingerprint, unless the account is blocked. Records
   * the key's use and, when `read` is given, takes one unit from the account's read counter, all in
   * one transaction: a GET costs one database round trip. The store's own (store.ts).
   */
  authenticate: Authenticate;

  /** Adds `units` to a counter for the period if the total stays within `limit`; all or nothing. */
  consume(accountId: number, counter: Counter, periodStart: string, units: number, limit: number): Promise<Consumption>;
  usage(accountId: number, counter: Counter, periodStart: string): Promise<number>;

  /**
   * Records a batch of submissions in one transaction: takes `checks.length` units from the
   * account's hourly counter (refusing the whole batch, recording nothing, when they do not fit),
   * then records each item that passed `checkItem`, replacing the account's previous vote, and
   * recomputes the barcode's status with the registry's status rules.
   */
  submitBarcodes(input: { account: Account; periodStart: string; checks: ItemCheck[] }, now: Date): Promise<SubmitOutcome>;
  /** The account's current submissions (one per barcode), most recent first. */
  mySubmissions(accountId: number, limit: number, offset: number): Promise<SubmissionRecord[]>;
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

  findAccountById(id: number): Promise<Account | null>;

  /** Stores a sign-in link's token (its SHA-256) for an account, valid until `expiresAt`. */
  createSignInToken(accountId: number, tokenHash: string, expiresAt: Date, now: Date): Promise<void>;
  /** Whether a token is still usable, without using it (the page that asks to confirm). */
  signInTokenUsable(tokenHash: string, now: Date): Promise<boolean>;
  /** Uses a token once, atomically: the account it signs in, or null if unknown, used or expired. */
  consumeSignInToken(tokenHash: string, now: Date): Promise<Account | null>;
  createSession(accountId: number, idHash: string, csrfToken: string, expiresAt: Date, now: Date): Promise<void>;
  /** The session's account, unless the session expired or the account is blocked. */
  findSession(idHash: string, now: Date): Promise<WebSession | null>;
  deleteSession(idHash: string): Promise<void>;
  /** Marks a form's one-time token used in a session: true the first time, false for a resend. */
  useFormOnce(sessionHash: string, nonce: string): Promise<boolean>;
  /** Ends every session of the account ("Esci da tutti i dispositivi"); returns how many. */
  deleteAccountSessions(accountId: number): Promise<number>;
  /** A generic counter for request limits (sign-in requests per address and per client). */
  countRequest(key: string, periodStart: string, limit: number): Promise<Consumption>;

  /** Stores a sign-up request and its link's token (SHA-256), valid until `expiresAt`. */
  createSignUp(input: SignUpRequest, now: Date): Promise<void>;
  /** Whether a sign-up link can still be confirmed, without confirming it. */
  signUpUsable(tokenHash: string, now: Date): Promise<boolean>;
  /**
   * Confirms a sign-up link once, atomically: creates the account (with the organisation and the
   * rules accepted), or leaves it waiting for an administrator when its type is in
   * `approvalTypes`. Null when the link is unknown, used or expired.
   */
  confirmSignUp(tokenHash: string, approvalTypes: readonly AccountType[], now: Date): Promise<SignUpConfirmation | null>;
  /** Confirmed sign-ups waiting for an administrator, oldest first. */
  pendingSignUps(): Promise<SignUp[]>;
  /** An administrator approves (the account is created) or refuses a waiting sign-up; null when it is not waiting. */
  decideSignUp(id: number, approve: boolean, actor: string, now: Date): Promise<{ signUp: SignUp; account: Account | null } | null>;

  audit(entry: AuditEntry, now: Date): Promise<void>;
  /** The most recent audit entries, newest first. */
  auditLog(limit: number): Promise<AuditRecord[]>;
  /** Deletes up to `batch` expired rows of each kind (purge-rules.ts); returns how many went. */
  purgeExpired(now: Date, batch: number): Promise<PurgeCounts>;
  /** The connections in use and the work waiting for one. */
  poolUse(): PoolUse;
  close(): Promise<void>;
}
