import { errors } from '../errors.ts';
import { releaseManifestOf, type Manifest } from '../release/manifest.ts';
import { refuseManifest, signManifest } from '../release/manifest-signature.ts';
import { inUse, keyListSchema, keysInUse, trustedKeys, type KeyList, type Signer } from '../release/signing-keys.ts';
import type { Bucket } from '../storage/bucket.ts';
import { KEYS_KEY } from './bucket-layout.ts';
import { jsonOrNull } from '../util/json-or-null.ts';

/** How the bucket's current manifest is signed: by whom (none: unsigned), at what time, for how long. */
export interface Signing {
  signer: Signer | null;
  now: Date;
  validityDays: number;
}

const DAY_MS = 86_400_000;

/**
 * What the bucket's current manifest becomes when `manifest`'s release is made current after
 * `previous`: signed with the next sequence and a new expiry when there is a signer. The sequence
 * only grows, rollbacks included, so a client tells a replayed old answer from an operator's rollback.
 */
export function nextCurrent(manifest: Manifest, previous: Manifest | null, signing: Signing | undefined): Manifest {
  const release = releaseManifestOf(manifest);
  if (!signing?.signer) return release;
  const sequence = (previous?.sequence ?? 0) + 1;
  return signManifest(release, signing.signer, { sequence, expires: new Date(signing.now.getTime() + signing.validityDays * DAY_MS) });
}

/**
 * Why the current manifest must be signed again though its release stays current, or null: it is
 * unsigned, signed by another key, or past half its validity (cron runs several times a day, so a
 * manifest is renewed days before it expires).
 */
export function resignReason(current: Manifest, signing: Signing | undefined): string | null {
  const signer = signing?.signer;
  if (!signing || !signer) return null;
  if (!current.signature || !current.expires) return 'it is not signed';
  if (current.signature.keyId !== signer.keyId) return `it is signed by key ${current.signature.keyId}, not ${signer.keyId}`;
  const left = Date.parse(current.expires) - signing.now.getTime();
  return left < (signing.validityDays * DAY_MS) / 2 ? `it expires on ${current.expires}` : null;
}

/** The bucket's key list; empty before any key was created. */
export async function readKeyList(bucket: Bucket): Promise<KeyList> {
  return (await readKeyListForUpdate(bucket)).list;
}

/** The key list with the tag its change compares against (null: no list yet). */
export async function readKeyListForUpdate(bucket: Bucket): Promise<{ list: KeyList; tag: string | null }> {
  const object = await bucket.getTagged(KEYS_KEY);
  if (!object) return { list: { keys: [] }, tag: null };
  // Bytes that are not JSON are reported as not a key list, as a wrong shape is.
  const parsed = keyListSchema.safeParse(jsonOrNull(object.bytes));
  if (!parsed.success) throw errors.bucketFailed(`${bucket.description}${KEYS_KEY}`, 'the key list in the bucket is not valid');
  return { list: parsed.data, tag: object.tag };
}

/** Replaces the key list only if it is still the one read (`tag`): another writer's key is never lost (`bucket_changed`). */
export async function writeKeyList(bucket: Bucket, list: KeyList, tag: string | null): Promise<void> {
  const written = await bucket.putIfUnchanged(KEYS_KEY, Buffer.from(`${JSON.stringify(list, null, 2)}\n`), 'application/json', tag);
  if (written === 'conflict')
    throw errors.bucketChanged(
      `${bucket.description}${KEYS_KEY}`,
      'another writer changed the key list meanwhile; nothing was written, run again',
    );
}

/**
 * Refuses a publication clients could not check: unsigned once the bucket lists a key in use, or
 * signed by a key the bucket does not list or has retired.
 */
export async function checkSigningKey(bucket: Bucket, signing: Signing | undefined): Promise<void> {
  const list = await readKeyList(bucket);
  const now = signing?.now ?? new Date();
  const signer = signing?.signer;
  if (!signer) {
    const active = keysInUse(list, now);
    if (active.length > 0) throw errors.signingKeyRequired(bucket.description, active);
    return;
  }
  const entry = list.keys.find((candidate) => candidate.keyId === signer.keyId);
  if (!entry) throw errors.signingKeyUnknown(signer.keyId, bucket.description, 'is not listed');
  if (!inUse(entry, now)) throw errors.signingKeyUnknown(signer.keyId, bucket.description, `was retired on ${entry.retiredAt}`);
}

/**
 * What `tariff verify --bucket` says of the current manifest's signature, checked as a client
 * does against the bucket's own key list: problems when it is refused (bad signature, unknown or
 * retired key, expired); a note when it is unsigned while keys.json lists a key in use. A writer
 * refuses to switch unsigned once a key is listed (checkSigningKey), so that is a key created
 * since the last switch and not used yet: the next signed run signs it, nothing is wrong meanwhile.
 */
export async function currentSignature(bucket: Bucket, current: Manifest, now: Date): Promise<{ problems: string[]; notes: string[] }> {
  const list = await readKeyList(bucket);
  const where = `${bucket.description}current.json`;
  if (!current.signature) {
    const active = keysInUse(list, now);
    const note =
      `${where} is not signed yet: keys.json lists ${active.join(', ')} in use, not used since; the next \`tariff release\` ` +
      '(or `tariff publish`) with TARIFF_SIGNING_KEY set signs it, and clients that require a signature wait for that run';
    return { problems: [], notes: active.length > 0 ? [note] : [] };
  }
  const refused = refuseManifest(current, { keys: trustedKeys(list), now });
  return { problems: refused ? [`${where}: ${refused.detail} (${refused.refusal})`] : [], notes: [] };
}
