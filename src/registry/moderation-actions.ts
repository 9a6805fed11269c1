import { barcodeRule } from '../dataset/barcode-rules.ts';
import { errors } from '../errors.ts';
import { checkGtin } from '../gs1/gtin.ts';
import { normaliseEmail } from '../inputs/input-schemas.ts';
import { parseTariffCode } from '../source/tariff-code.ts';
import type { Account, BarcodeSummary, Registry } from './registry.ts';

/** A barcode given by a moderator, as its 14-digit identity. Any valid GTIN form is accepted, whatever its prefix. */
export function gtin14Of(text: string): string {
  const check = checkGtin(text.trim());
  if (check.ok) return check.gtin14;
  if (check.reason === 'unsupported_barcode') return text.trim().padStart(14, '0');
  throw errors.invalidValue('barcode', text, `${text} is not a barcode: ${check.reason} (${check.detail})`);
}

/**
 * The moderator's decisions, one code path for `tariff barcodes`, `tariff contributors`,
 * `tariff accounts block` and the website's moderation desk: the same checks, the same registry
 * calls (whose status rules were bound when it was opened), each decision in the audit log under its actor.
 */
export function moderationActions(registry: Registry) {
  const account = async (address: string): Promise<Account> => {
    const found = await registry.findAccount(normaliseEmail(address) ?? address.trim());
    if (!found) throw errors.accountNotFound(address);
    return found;
  };
  return {
    async approve(
      barcode: string,
      match: { admCode: unknown; kind: unknown; units: unknown },
      actor: string,
      now: Date,
      /** Whether the tariff currently published has the code. */
      tariffHas: (admCode: number) => boolean,
    ): Promise<BarcodeSummary> {
      const admCode = parseTariffCode(match.admCode);
      if (admCode === null)
        throw errors.invalidValue(
          'admCode',
          String(match.admCode),
          `${String(match.admCode)} is not a tariff code (a whole number of 1 to 9 digits)`,
        );
      // The same rule as the API's: a match to a code the tariff does not have would never reach a release.
      if (!tariffHas(admCode)) throw errors.unknownAdmCode(admCode);
      const rule = barcodeRule(match.kind, match.units);
      if (!rule.ok) throw errors.invalidValue('match', `${String(match.kind)} ${String(match.units)}`, `${rule.reason}: ${rule.detail}`);
      return registry.approveBarcode(gtin14Of(barcode), { admCode, kind: rule.kind, units: rule.units }, actor, now);
    },
    revoke: (barcode: string, actor: string, now: Date): Promise<BarcodeSummary> => registry.revokeBarcode(gtin14Of(barcode), actor, now),
    blockAccount: async (address: string, blocked: boolean, actor: string, now: Date): Promise<Account> =>
      registry.setBlocked((await account(address)).email, blocked, actor, now),
    async blockContributor(address: string, contributorRef: string, blocked: boolean, actor: string, now: Date): Promise<void> {
      const owner = await account(address);
      // Only an integration sends contributorRef: another account has no points of sale to block.
      if (owner.type !== 'Integration') throw errors.notIntegration(owner.email, owner.type);
      await registry.setContributorBlocked(owner.id, contributorRef.trim(), blocked, actor, now);
    },
  };
}

/** The moderation actions the CLI and the desk share, bound to one registry. */
export type ModerationActions = ReturnType<typeof moderationActions>;
