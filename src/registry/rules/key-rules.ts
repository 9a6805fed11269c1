import { errors } from '../../errors.ts';
import { KEY_PREFIX } from '../api-key.ts';

/** The shortest prefix that names a key to revoke: the service prefix and 4 characters of secret. */
export const MIN_REVOKE_PREFIX = KEY_PREFIX.length + 4;

/** The active key a typed prefix names: exactly one, and the prefix long enough not to match by accident. */
export function keyMatchingPrefix<Row extends { prefix: string }>(rows: Row[], prefix: string, email: string): Row {
  if (prefix.length < MIN_REVOKE_PREFIX) throw errors.keyPrefixTooShort(prefix, MIN_REVOKE_PREFIX);
  const matches = rows.filter((row) => row.prefix.startsWith(prefix) || prefix.startsWith(row.prefix));
  if (matches.length === 0) throw errors.keyNotFound(email, prefix);
  if (matches.length > 1) throw errors.keyPrefixAmbiguous(prefix);
  return matches[0]!;
}
