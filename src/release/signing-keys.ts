import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import * as z from 'zod';
import { sha256Hex } from '../util/digests.ts';
import { isoInstant, KEY_ID, PUBLIC_KEY_BASE64, SIGNATURE_ALGORITHM } from './manifest.ts';

/** One public key of the key list: what anyone checking a manifest needs. */
const publicKeyEntry = z.strictObject({
  keyId: z.string().regex(KEY_ID),
  algorithm: z.literal(SIGNATURE_ALGORITHM),
  /** The raw 32-byte Ed25519 public key, base64. */
  publicKey: z.string().regex(PUBLIC_KEY_BASE64),
  created: isoInstant,
  /** From this instant on, signatures by the key are refused; null while it is in use. */
  retiredAt: isoInstant.nullable(),
});

/** The key list the bucket publishes (`keys.json`) and the service serves at /.well-known/tariff-keys.json. */
export const keyListSchema = z.strictObject({ keys: z.array(publicKeyEntry) });

export type PublicKeyEntry = z.infer<typeof publicKeyEntry>;
export type KeyList = z.infer<typeof keyListSchema>;

/** The key that signs: its id (as the key list names it) and the private key. */
export interface Signer {
  keyId: string;
  privateKey: KeyObject;
}

/** A key a checker trusts: the public key, and when its signatures stop being accepted. */
export interface TrustedKey {
  keyId: string;
  publicKey: KeyObject;
  retiredAt: string | null;
}

/** The raw 32 bytes of an Ed25519 public key (the JWK's `x`). */
export function rawPublicKey(key: KeyObject): Buffer {
  const { x } = key.export({ format: 'jwk' });
  return Buffer.from(x!, 'base64url');
}

/** A public key from its raw 32 bytes, in base64 as the key list writes it. */
export function publicKeyFromBase64(base64: string): KeyObject {
  const raw = Buffer.from(base64, 'base64');
  if (raw.length !== 32) throw new Error(`an Ed25519 public key is 32 bytes, this one is ${raw.length}`);
  return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: raw.toString('base64url') }, format: 'jwk' });
}

/** A key's id: the first 16 hex digits of the SHA-256 of its raw public key, so anyone can recompute it. */
export const keyIdOf = (publicKey: KeyObject): string => sha256Hex(rawPublicKey(publicKey)).slice(0, 16);

/** A new Ed25519 key pair: the private key as PKCS#8 PEM (for its 0600 file) and the key list's entry. */
export function generateSigningKey(created: Date): { privatePem: string; entry: PublicKeyEntry } {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  return {
    privatePem: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
    entry: {
      keyId: keyIdOf(publicKey),
      algorithm: SIGNATURE_ALGORITHM,
      publicKey: rawPublicKey(publicKey).toString('base64'),
      created: created.toISOString(),
      retiredAt: null,
    },
  };
}

/** The signer a PKCS#8 PEM holds, or an error saying why it is not an Ed25519 private key. */
export function signerFromPem(pem: string): Signer {
  const privateKey = createPrivateKey(pem);
  if (privateKey.asymmetricKeyType !== 'ed25519')
    throw new Error(`it holds a ${privateKey.asymmetricKeyType ?? 'secret'} key, not an Ed25519 one`);
  return { keyId: keyIdOf(createPublicKey(privateKey)), privateKey };
}

/** The keys of a key list a checker trusts, with their retirements. */
export const trustedKeys = (list: KeyList): TrustedKey[] =>
  list.keys.map((entry) => ({ keyId: entry.keyId, publicKey: publicKeyFromBase64(entry.publicKey), retiredAt: entry.retiredAt }));

/** Whether a key still signs at `now`: listed and not retired by then. */
export const inUse = (entry: Pick<PublicKeyEntry, 'retiredAt'>, now: Date): boolean =>
  entry.retiredAt === null || Date.parse(entry.retiredAt) > now.getTime();

/** The ids of the keys of a key list that still sign at `now`. */
export const keysInUse = (list: KeyList, now: Date): string[] => list.keys.filter((entry) => inUse(entry, now)).map((entry) => entry.keyId);

/** Whether `text` is a key written `<key id>:<base64 public key>` (not a file name). */
export function isPinnedKey(text: string): boolean {
  const [keyId, base64, ...rest] = text.split(':');
  return rest.length === 0 && KEY_ID.test(keyId!) && PUBLIC_KEY_BASE64.test(base64 ?? '');
}

/**
 * A key a client is told to trust: `<key id>:<base64 public key>` as `tariff signing-key list`
 * prints it, or the text of a file holding the key list (keys.json) or a PEM public key.
 */
export function parseTrustedKeys(text: string): TrustedKey[] {
  const trimmed = text.trim();
  if (isPinnedKey(trimmed)) {
    const [keyId, base64] = trimmed.split(':') as [string, string];
    const publicKey = publicKeyFromBase64(base64);
    if (keyIdOf(publicKey) !== keyId) throw new Error(`the key id ${keyId} is not the id of that public key (${keyIdOf(publicKey)})`);
    return [{ keyId, publicKey, retiredAt: null }];
  }
  if (trimmed.startsWith('{')) return trustedKeys(keyListSchema.parse(JSON.parse(trimmed)));
  const publicKey = createPublicKey(trimmed);
  if (publicKey.asymmetricKeyType !== 'ed25519') throw new Error('it is not an Ed25519 public key');
  return [{ keyId: keyIdOf(publicKey), publicKey, retiredAt: null }];
}
