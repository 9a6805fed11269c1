import { createHash, hash, timingSafeEqual } from 'node:crypto';
import type { Readable } from 'node:stream';

/** Hex SHA-256: release files, API key fingerprints, sign-in and session tokens (one-shot: on every request's path). */
export function sha256Hex(data: Uint8Array | string): string {
  return hash('sha256', data, 'hex');
}

/** Hex SHA-256 of a stream, read through once: a large object checked without its bytes held. */
export async function sha256OfStream(body: Readable): Promise<string> {
  const digest = createHash('sha256');
  for await (const chunk of body) digest.update(chunk as Buffer);
  return digest.digest('hex');
}

/**
 * Whether two secrets (tokens, fingerprints) are equal, in time that does not depend on where they
 * differ. A missing one is never equal; unequal lengths say only that.
 */
export function sameSecret(a: string | undefined, b: string | undefined): boolean {
  if (!a || !b) return false;
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
