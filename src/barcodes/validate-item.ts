import { barcodeRule } from '../dataset/barcode-rules.ts';
import { checkGtin } from '../gs1/gtin.ts';
import type { AccountType } from './account-types.ts';
import type { Match } from './status-rules.ts';
import { parseTariffCode } from '../source/tariff-code.ts';

export type RejectionReason =
  | 'invalid_barcode'
  | 'invalid_checksum'
  | 'unsupported_barcode'
  | 'unknown_adm_code'
  | 'invalid_kind'
  | 'invalid_units'
  | 'barcode_revoked'
  | 'contributor_ref_not_allowed'
  | 'invalid_contributor_ref'
  | 'contributor_blocked';

/** An item that passed the checks that need no database: what the transaction will record. */
export interface Candidate extends Match {
  /** The barcode as sent (echoed in the response and kept on the record). */
  barcode: string;
  /** The GTIN padded to 14 digits: the barcode's identity for voting. */
  gtin14: string;
  contributorRef: string | null;
}

export type ItemCheck = { ok: true; candidate: Candidate } | { ok: false; barcode: string; reason: RejectionReason };

const CONTRIBUTOR_REF = /^[A-Za-z0-9._:-]{1,64}$/;

/** The barcode to echo for any JSON value: strings as sent, numbers written out, anything else empty. */
export function echoBarcode(item: unknown): string {
  const value = typeof item === 'object' && item !== null ? (item as Record<string, unknown>).barcode : undefined;
  return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : '';
}

/**
 * Checks one submission item on its own, in the documented order (docs/moderation.md): barcode
 * (characters and length, check digit, kind of code), tariff code, kind, units, contributor
 * reference. A value of the wrong JSON type fails the check of its field: a barcode sent as a
 * number is `invalid_barcode` (leading zeros are lost), an admCode that is not a whole number is
 * `unknown_adm_code`. `null` counts as absent for the optional fields.
 */
export function checkItem(item: unknown, accountType: AccountType, tariffHas: (admCode: number) => boolean): ItemCheck {
  const barcode = echoBarcode(item);
  const fields = typeof item === 'object' && item !== null && !Array.isArray(item) ? (item as Record<string, unknown>) : {};
  const reject = (reason: RejectionReason): ItemCheck => ({ ok: false, barcode, reason });

  if (typeof fields.barcode !== 'string') return reject('invalid_barcode');
  const gtin = checkGtin(fields.barcode);
  if (!gtin.ok) return reject(gtin.reason);
  const admCode = fields.admCode;
  if (typeof admCode !== 'number' || parseTariffCode(admCode) === null || !tariffHas(admCode)) return reject('unknown_adm_code');
  const rule = barcodeRule(fields.kind ?? 'pack', fields.units ?? undefined);
  if (!rule.ok) return reject(rule.reason);

  const ref = fields.contributorRef ?? null;
  if (ref !== null && accountType !== 'Integration') return reject('contributor_ref_not_allowed');
  if (ref !== null && (typeof ref !== 'string' || !CONTRIBUTOR_REF.test(ref))) return reject('invalid_contributor_ref');
  return {
    ok: true,
    candidate: { barcode, gtin14: gtin.gtin14, admCode, kind: rule.kind, units: rule.units, contributorRef: ref as string | null },
  };
}
