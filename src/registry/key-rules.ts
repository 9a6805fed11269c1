import { errors } from '../errors.ts';
import { oneLine } from '../util/clean-text.ts';
import { KEY_PREFIX } from './api-key.ts';

export const MAX_LABEL_LENGTH = 100;
/** The shortest prefix that names a key to revoke: the service prefix and 4 characters of secret. */
export const MIN_REVOKE_PREFIX = KEY_PREFIX.length + 4;

/**
 * A key's label as stored and shown: control characters (which an operator's terminal would
 * obey) become spaces, runs of spaces fold, at most 100 characters. Every path that labels a key
 * goes through here.
 *
 * @example cleanLabel('cassa\u001b[2J 1') === 'cassa [2J 1'
 */
export function cleanLabel(label: string): string {
  return [...oneLine(label)].slice(0, MAX_LABEL_LENGTH).join('');
}

/** The active key a typed prefix names: exactly one, and the prefix long enough not to match by accident. */
export function keyMatchingPrefix<Row extends { prefix: string }>(rows: Row[], prefix: string, email: string): Row {
  if (prefix.length < MIN_REVOKE_PREFIX) throw errors.keyPrefixTooShort(prefix, MIN_REVOKE_PREFIX);
  const matches = rows.filter((row) => row.prefix.startsWith(prefix) || prefix.startsWith(row.prefix));
  if (matches.length === 0) throw errors.keyNotFound(email, prefix);
  if (matches.length > 1) throw errors.keyPrefixAmbiguous(prefix);
  return matches[0]!;
}
