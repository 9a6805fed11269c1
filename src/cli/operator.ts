import { errors } from '../errors.ts';
import { normaliseEmail } from '../inputs/input-schemas.ts';
import type { Account, Registry } from '../registry/registry.ts';

/** Operator actions are recorded in the audit log under this actor. */
export const OPERATOR = 'operator (cli)';

/** An e-mail address from the command line, normalised as the registry keeps it; a usage error otherwise. */
export function emailArgument(value: string): string {
  const normalised = normaliseEmail(value);
  if (!normalised) throw errors.invalidEmail(value);
  return normalised;
}

/** The account an e-mail address on the command line names; `account_not_found` otherwise. */
export async function requireAccount(registry: Registry, address: string): Promise<Account> {
  const account = await registry.findAccount(emailArgument(address));
  if (!account) throw errors.accountNotFound(address);
  return account;
}
