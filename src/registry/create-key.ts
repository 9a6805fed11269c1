import { generateApiKey } from './api-key.ts';
import { cleanLabel } from '../inputs/input-schemas.ts';
import type { Account, ApiKeyRecord, Registry } from './registry.ts';

/** Creates an API key for an account: the full key is returned once and never stored. The label is cleaned (key-rules.ts). */
export async function createKey(
  registry: Registry,
  account: Account,
  label: string,
  now: Date,
  /** Who creates it, for the audit log: the command line unless said (the website says the account). */
  actor?: string,
): Promise<{ key: string; record: ApiKeyRecord }> {
  const key = generateApiKey();
  const record = await registry.addKey(
    account.id,
    { fingerprint: key.fingerprint, prefix: key.displayPrefix, label: cleanLabel(label) },
    now,
    actor,
  );
  return { key: key.key, record };
}
