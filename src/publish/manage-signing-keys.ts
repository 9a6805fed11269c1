import { mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { errors, isTariffError } from '../errors.ts';
import { generateSigningKey, inUse, type PublicKeyEntry } from '../release/signing-keys.ts';
import type { Bucket } from '../storage/bucket.ts';
import { readKeyListForUpdate, writeKeyList } from './current-signing.ts';

/** Where `tariff signing-key create` puts a new private key without --out: beside the state, never in the bucket. */
export const defaultKeyFile = (dataDir: string, keyId: string) => join(dataDir, 'signing-keys', `${keyId}.pem`);

/**
 * A new signing key: the private key written to `file` (created, never replaced; mode 0600, its
 * folder 0700), then its public key added to the bucket's key list, so clients can check its
 * signatures before it signs anything.
 */
export async function createSigningKey(
  bucket: Bucket,
  options: { dataDir: string; file?: string; now: Date },
): Promise<{ entry: PublicKeyEntry; file: string }> {
  const { privatePem, entry } = generateSigningKey(options.now);
  const file = options.file ?? defaultKeyFile(options.dataDir, entry.keyId);
  const { list, tag } = await readKeyListForUpdate(bucket);
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  try {
    await writeFile(file, privatePem, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw errors.usage(
      `${file}: cannot write the private key (${code === 'EEXIST' ? 'the file exists; a key is never overwritten' : code})`,
    );
  }
  try {
    await writeKeyList(bucket, { keys: [...list.keys, entry] }, tag);
  } catch (error) {
    // Refused (another writer's change, a lost lease): the private key of a key nobody lists goes,
    // so the command run again as its hint says finds --out free. Listed after all (an answer lost
    // after the list landed): the key is in use. Not known (the bucket unreadable now): kept, named.
    const listed = await readKeyListForUpdate(bucket).then(
      (now) => now.list.keys.some((key) => key.keyId === entry.keyId),
      () => null,
    );
    if (listed === true) return { entry, file };
    if (listed === false) await rm(file, { force: true });
    else if (isTariffError(error))
      error.message += `; the private key is kept at ${file} until the bucket says whether it lists ${entry.keyId}`;
    throw error;
  }
  return { entry, file };
}

/**
 * Retires a key: from `at` on, clients refuse manifests it signed. Until then both keys overlap
 * (docs/operations.md, "Rotating the signing key").
 */
export async function retireSigningKey(bucket: Bucket, keyId: string, at: Date): Promise<PublicKeyEntry> {
  const { list, tag } = await readKeyListForUpdate(bucket);
  const entry = list.keys.find((candidate) => candidate.keyId === keyId);
  if (!entry) throw errors.usage(`${bucket.description}keys.json lists no key ${keyId} (tariff signing-key list)`);
  if (!inUse(entry, at)) throw errors.usage(`key ${keyId} is retired already (on ${entry.retiredAt})`);
  const retired = { ...entry, retiredAt: at.toISOString() };
  await writeKeyList(bucket, { keys: list.keys.map((candidate) => (candidate.keyId === keyId ? retired : candidate)) }, tag);
  return retired;
}
