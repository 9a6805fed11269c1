import { createPublicKey, verify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sampleManifest } from '../../test/helpers/manifests.ts';
import { refuseManifest, signedBytes, signManifest } from './manifest-signature.ts';
import { generateSigningKey, parseTrustedKeys, signerFromPem, trustedKeys, type TrustedKey } from './signing-keys.ts';

const manifest = (version = '20261201.1') => sampleManifest({ version });

const NOW = new Date('2026-12-01T07:00:00Z');
const inDays = (days: number) => new Date(NOW.getTime() + days * 86_400_000);

function keyPair() {
  const { privatePem, entry } = generateSigningKey(NOW);
  const signer = signerFromPem(privatePem);
  const trusted: TrustedKey = trustedKeys({ keys: [entry] })[0]!;
  return { signer, trusted, entry };
}

describe('signed manifests', () => {
  const { signer, trusted, entry } = keyPair();
  const signed = signManifest(manifest(), signer, { sequence: 4, expires: inDays(7) });
  const check = { keys: [trusted], now: NOW };

  it('signs the canonical JSON of the manifest without its signature and URLs, checkable with the public key alone', () => {
    expect(signed).toMatchObject({
      sequence: 4,
      expires: inDays(7).toISOString(),
      signature: { keyId: entry.keyId, algorithm: 'ed25519' },
    });
    // RFC 8785 by hand for this shape (no floats, ASCII keys): keys sorted, no whitespace.
    const sorted = (value: unknown): unknown =>
      value && typeof value === 'object' && !Array.isArray(value)
        ? Object.fromEntries(
            Object.keys(value)
              .sort()
              .map((key) => [key, sorted((value as Record<string, unknown>)[key])]),
          )
        : value;
    const { signature, ...rest } = structuredClone(signed);
    for (const file of Object.values(rest.files)) delete (file as { url?: string }).url;
    const independent = Buffer.from(JSON.stringify(sorted(rest)));
    expect(signedBytes(signed).equals(independent)).toBe(true);
    const publicKey = createPublicKey({
      key: Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), Buffer.from(entry.publicKey, 'base64')]),
      format: 'der',
      type: 'spki',
    });
    expect(verify(null, independent, publicKey, Buffer.from(signature!.value, 'base64'))).toBe(true);
    expect(refuseManifest(signed, check)).toBeNull();
  });

  it('stays valid when a service serves the files under its own address', () => {
    const moved = structuredClone(signed);
    moved.files.json.url = 'https://cdn.example.net/dataset.json.gz';
    expect(refuseManifest(moved, check)).toBeNull();
  });

  it('refuses a changed digest, an unsigned manifest, an unknown key, a retired key, an expired one and a replay', () => {
    const tampered = structuredClone(signed);
    tampered.files.json.sha256 = 'f'.repeat(64);
    expect(refuseManifest(tampered, check)?.refusal).toBe('bad_signature');
    const later = structuredClone(signed);
    later.expires = inDays(30).toISOString();
    expect(refuseManifest(later, check)?.refusal).toBe('bad_signature');
    expect(refuseManifest(manifest(), check)?.refusal).toBe('unsigned');
    const other = keyPair();
    expect(refuseManifest(signManifest(manifest(), other.signer, { sequence: 5, expires: inDays(7) }), check)?.refusal).toBe('unknown_key');
    expect(refuseManifest(signed, { ...check, keys: [{ ...trusted, retiredAt: NOW.toISOString() }] })?.refusal).toBe('retired_key');
    expect(refuseManifest(signed, { ...check, keys: [{ ...trusted, retiredAt: inDays(1).toISOString() }] })).toBeNull();
    expect(refuseManifest(signed, { ...check, now: inDays(7) })?.refusal).toBe('expired');
    expect(refuseManifest(signed, { ...check, last: { sequence: 5, version: '20261201.2' } })?.refusal).toBe('replayed');
    expect(refuseManifest(signed, { ...check, last: { sequence: 4, version: '20261101.1' } })?.refusal).toBe('replayed');
    expect(refuseManifest(signed, { ...check, last: { sequence: 4, version: '20261201.1' } })).toBeNull();
  });

  it('follows a rollback: an older version with a higher sequence', () => {
    const rolledBack = signManifest(manifest('20261101.1'), signer, { sequence: 5, expires: inDays(7) });
    expect(refuseManifest(rolledBack, { ...check, last: { sequence: 4, version: '20261201.1' } })).toBeNull();
  });

  it('reads a pinned key as id:base64, as a key list, or as a PEM public key, and refuses an id that is not the key’s', () => {
    expect(parseTrustedKeys(`${entry.keyId}:${entry.publicKey}`)[0]!.keyId).toBe(entry.keyId);
    expect(parseTrustedKeys(JSON.stringify({ keys: [entry] }))[0]!.keyId).toBe(entry.keyId);
    const pem = trusted.publicKey.export({ format: 'pem', type: 'spki' }).toString();
    expect(parseTrustedKeys(pem)[0]!.keyId).toBe(entry.keyId);
    expect(() => parseTrustedKeys(`0123456789abcdef:${entry.publicKey}`)).toThrow(/not the id of that public key/);
  });
});
