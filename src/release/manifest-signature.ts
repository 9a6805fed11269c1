import { sign, verify } from 'node:crypto';
import canonicalize from 'canonicalize';
import { FORMATS, SIGNATURE_ALGORITHM, type Manifest } from './manifest.ts';
import { inUse, type Signer, type TrustedKey } from './signing-keys.ts';

/**
 * The bytes a signature covers: the manifest without its signature and without the files' URLs,
 * in RFC 8785 canonical JSON. The URLs are where a file may be fetched, not what it is (its size
 * and SHA-256 are signed): the service, a mirror or a CDN serves the files under its own address.
 */
export function signedBytes(manifest: Manifest): Buffer {
  const { signature: _signature, ...rest } = manifest;
  const files = Object.fromEntries(
    FORMATS.map((format) => {
      const { url: _url, ...entry } = manifest.files[format];
      return [format, entry];
    }),
  );
  return Buffer.from(canonicalize({ ...rest, files })!, 'utf8');
}

/** The manifest the bucket makes current: the release's, with its place in the sequence, its expiry and the signature over them all. */
export function signManifest(manifest: Manifest, signer: Signer, stamp: { sequence: number; expires: Date }): Manifest {
  const { signature: _old, ...unsigned } = manifest;
  const stamped: Manifest = { ...unsigned, sequence: stamp.sequence, expires: stamp.expires.toISOString() };
  const value = sign(null, signedBytes(stamped), signer.privateKey).toString('base64');
  return { ...stamped, signature: { keyId: signer.keyId, algorithm: SIGNATURE_ALGORITHM, value } };
}

/** Why a client refuses a manifest (docs/sync.md, "Signed manifests"). */
export type ManifestRefusal = 'unsigned' | 'unknown_key' | 'retired_key' | 'bad_signature' | 'expired' | 'replayed';

export interface ManifestCheck {
  keys: readonly TrustedKey[];
  now: Date;
  /** The sequence of the last manifest accepted, and its version: an older one is a replay. */
  last?: { sequence: number; version: string } | null;
}

/**
 * Checks a manifest as a client must before trusting it: signed, by a trusted key not retired,
 * the signature good over the signed bytes, not expired, and not older than the last one accepted
 * (a rollback comes with a higher sequence; a replay cannot). Null when it passes. Pure.
 */
export function refuseManifest(manifest: Manifest, check: ManifestCheck): { refusal: ManifestRefusal; detail: string } | null {
  const { signature } = manifest;
  if (!signature || manifest.sequence === undefined || !manifest.expires)
    return { refusal: 'unsigned', detail: 'the manifest is not signed' };
  const key = check.keys.find((candidate) => candidate.keyId === signature.keyId);
  if (!key) return { refusal: 'unknown_key', detail: `it is signed by key ${signature.keyId}, which is not one of the trusted keys` };
  if (!inUse(key, check.now))
    return { refusal: 'retired_key', detail: `it is signed by key ${signature.keyId}, retired on ${key.retiredAt}` };
  if (!verify(null, signedBytes(manifest), key.publicKey, Buffer.from(signature.value, 'base64')))
    return { refusal: 'bad_signature', detail: `its signature by key ${signature.keyId} does not match its content` };
  if (Date.parse(manifest.expires) <= check.now.getTime()) return { refusal: 'expired', detail: `it expired on ${manifest.expires}` };
  const last = check.last;
  if (last && (manifest.sequence < last.sequence || (manifest.sequence === last.sequence && manifest.version !== last.version)))
    return {
      refusal: 'replayed',
      detail: `its sequence ${manifest.sequence} (${manifest.version}) is older than ${last.sequence} (${last.version}), the last one accepted: an old answer replayed`,
    };
  return null;
}
