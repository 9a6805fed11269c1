import { randomBytes } from 'node:crypto';
import { sameSecret, sha256Hex } from '../util/digests.ts';

/** Every key starts with this, so leaked keys are easy to recognise and scan for. */
export const KEY_PREFIX = 'ttd_';
/** 32 bytes from the CSPRNG: 256 bits of secret, written as 43 base64url characters. */
const SECRET_BYTES = 32;
const KEY_FORMAT = /^ttd_[A-Za-z0-9_-]{43}$/;
/** How much of a key is stored and shown to recognise it: the prefix and 8 characters of secret. */
export const DISPLAY_LENGTH = KEY_PREFIX.length + 8;

export interface NewApiKey {
  /** The full key: shown once, never stored. */
  key: string;
  fingerprint: string;
  displayPrefix: string;
}

export function generateApiKey(): NewApiKey {
  const key = KEY_PREFIX + randomBytes(SECRET_BYTES).toString('base64url');
  return { key, fingerprint: fingerprintOf(key), displayPrefix: key.slice(0, DISPLAY_LENGTH) };
}

/** SHA-256 of the key, hex: what the registry stores and looks keys up by. */
export function fingerprintOf(key: string): string {
  return sha256Hex(key);
}

export function looksLikeApiKey(value: string): boolean {
  return KEY_FORMAT.test(value);
}

/** Constant-time comparison of two fingerprints. */
export const sameFingerprint = (a: string, b: string): boolean => sameSecret(a, b);
