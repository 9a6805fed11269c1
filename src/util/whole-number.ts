/** Decimal digits and nothing else: no sign, exponent, hex, fraction or inner space (`1e3`, `0x10`, `-1`, `12.0` are refused). */
const DIGITS = /^\d{1,15}$/;

/**
 * A whole number within bounds as a person or a program gives it: a JSON integer, or text of
 * decimal digits (spaces around it aside). Null when it is anything else or out of bounds. The
 * one reading of counts, pages and units on every surface (command line, API, website).
 *
 * @example parseWholeNumber('012', 1, 100) === 12 && parseWholeNumber('1e3', 1, 10_000) === null
 */
export function parseWholeNumber(value: unknown, min: number, max: number): number | null {
  let number: number;
  if (typeof value === 'number') number = value;
  else if (typeof value === 'string' && DIGITS.test(value.trim())) number = Number(value.trim());
  else return null;
  return Number.isSafeInteger(number) && number >= min && number <= max ? number : null;
}
