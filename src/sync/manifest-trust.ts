import { errors } from '../errors.ts';
import type { Manifest } from '../release/manifest.ts';
import { refuseManifest } from '../release/manifest-signature.ts';
import { keyListSchema, type TrustedKey } from '../release/signing-keys.ts';
import { httpGet } from './http-get.ts';

/** Where the service publishes its signing keys: outside /v1, at its origin, so asking costs no read. */
const keysUrl = (api: string): string => new URL('/.well-known/tariff-keys.json', api).toString();

/**
 * The service's own key list, for the retirements it announces: it only ever narrows the pinned
 * keys (a key the till does not pin is never trusted because the service lists it). Empty when the
 * service does not answer with one: the pinned keys then stand as they are.
 */
async function announcedRetirements(api: string, options: { signal: AbortSignal }): Promise<Map<string, string>> {
  const retired = new Map<string, string>();
  try {
    const response = await httpGet(keysUrl(api), { headers: { 'user-agent': 'tariff-sync' }, signal: options.signal });
    if (response.status !== 200) {
      response.discard();
      return retired;
    }
    const text = await response.text();
    for (const entry of keyListSchema.parse(JSON.parse(text)).keys) if (entry.retiredAt) retired.set(entry.keyId, entry.retiredAt);
  } catch {
    // No list, or not one: the pinned keys decide alone.
  }
  return retired;
}

/** The earlier of two retirements (null: none). */
const earlier = (a: string | null, b: string | undefined): string | null =>
  b === undefined ? a : a === null || Date.parse(b) < Date.parse(a) ? b : a;

/**
 * Refuses, with `manifest_untrusted`, a manifest a till must not trust (release/manifest-signature.ts):
 * unsigned, signed by a key not pinned or retired, badly signed, expired, or older than the last accepted.
 */
export async function checkManifestTrust(
  manifest: Manifest,
  where: string,
  check: { pinned: readonly TrustedKey[]; now: Date; last: { sequence: number; version: string } | null; api: string },
  http: { signal: AbortSignal },
): Promise<void> {
  const retirements = await announcedRetirements(check.api, http);
  const keys = check.pinned.map((key) => ({ ...key, retiredAt: earlier(key.retiredAt, retirements.get(key.keyId)) }));
  const refused = refuseManifest(manifest, { keys, now: check.now, last: check.last });
  if (refused) throw errors.manifestUntrusted(where, refused.refusal, refused.detail);
}
