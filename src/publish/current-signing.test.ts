import { describe, expect, it } from 'vitest';
import { sampleManifest } from '../../test/helpers/manifests.ts';
import { generateSigningKey, signerFromPem } from '../release/signing-keys.ts';
import { nextCurrent, resignReason, type Signing } from './current-signing.ts';

const release = sampleManifest();
const key = (at: string) => signerFromPem(generateSigningKey(new Date(at)).privatePem);
const signer = key('2026-11-01T00:00:00Z');
const at = (instant: string): Signing => ({ signer, now: new Date(instant), validityDays: 7 });

describe('what the bucket’s current manifest becomes', () => {
  it('is the release’s own manifest without a signer, whatever the current one carried', () => {
    const signed = nextCurrent(release, null, at('2026-12-01T05:00:00Z'));
    expect(nextCurrent(signed, signed, undefined)).toEqual(release);
    expect(nextCurrent(signed, signed, { ...at('2026-12-01T05:00:00Z'), signer: null })).toEqual(release);
  });

  it('is signed with the next sequence and an expiry the validity away', () => {
    const first = nextCurrent(release, null, at('2026-12-01T05:00:00Z'));
    expect(first).toMatchObject({ sequence: 1, expires: '2026-12-08T05:00:00.000Z', signature: { keyId: signer.keyId } });
    // A rollback to an older release after it still moves the sequence on.
    expect(nextCurrent({ ...release, version: '20261101.1' }, first, at('2026-12-02T05:00:00Z')).sequence).toBe(2);
  });

  it('is signed again when unsigned, signed by another key, or past half its validity; not while fresh', () => {
    const signed = nextCurrent(release, null, at('2026-12-01T05:00:00Z'));
    expect(resignReason(release, at('2026-12-01T05:00:00Z'))).toBe('it is not signed');
    expect(resignReason(signed, at('2026-12-04T16:59:59Z'))).toBeNull();
    expect(resignReason(signed, at('2026-12-04T17:00:01Z'))).toBe('it expires on 2026-12-08T05:00:00.000Z');
    const other = key('2026-12-01T00:00:00Z');
    expect(resignReason(signed, { ...at('2026-12-01T06:00:00Z'), signer: other })).toBe(
      `it is signed by key ${signer.keyId}, not ${other.keyId}`,
    );
    expect(resignReason(signed, undefined)).toBeNull();
  });
});
