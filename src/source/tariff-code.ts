/** The largest tariff code: nine digits, which every engine's integer column holds (PostgreSQL's is 32-bit). */
export const MAX_TARIFF_CODE = 999_999_999;

/**
 * A tariff code (codice AAMS/ADM) as the authority prints it and as people and programs give it:
 * a whole number from 1 to nine digits, written as digits only (no sign, exponent, hex or
 * fraction: `1e3`, `0x10`, `12.0` are not codes). The one rule for every reader of codes: lists,
 * feeds, barcode lists, the API, the desk and the command line. Null when it is not a code.
 *
 * @example parseTariffCode('20727') === 20727 && parseTariffCode('0x10') === null && parseTariffCode(1e20) === null
 */
export function parseTariffCode(value: unknown): number | null {
  if (typeof value === 'number') return Number.isInteger(value) && value >= 1 && value <= MAX_TARIFF_CODE ? value : null;
  if (typeof value !== 'string') return null;
  const trimmed = value.trim();
  if (!/^\d{1,9}$/.test(trimmed)) return null;
  const code = Number(trimmed);
  return code > 0 ? code : null;
}
