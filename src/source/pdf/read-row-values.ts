import { parseEuroCents } from '../parse-euro.ts';

/** A tariff code as printed: a positive whole number of up to 9 digits. */
export function readCode(text: string): number | null {
  const trimmed = text.trim();
  if (!/^\d{1,9}$/.test(trimmed)) return null;
  const code = Number(trimmed);
  return code > 0 ? code : null;
}

/** A positive euro amount written the Italian way, in cents. */
export function readPrice(text: string): number | null {
  const cents = parseEuroCents(text);
  return cents !== null && cents > 0 ? cents : null;
}
