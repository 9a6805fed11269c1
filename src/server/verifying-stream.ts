import { createHash } from 'node:crypto';
import { Transform } from 'node:stream';
import { sameDigest } from '../release/manifest.ts';

/**
 * Passes a streamed file through, holding back its last chunk until the whole file has hashed
 * to the manifest's SHA-256: bytes changed in the bucket after the check are never delivered
 * whole under the manifest's ETag (the client sees a broken download instead).
 */
export function verifyingStream(
  key: string,
  expected: { sha256: string; size: number },
  log: (event: Record<string, unknown>) => void,
): Transform {
  const hash = createHash('sha256');
  let held: Buffer | null = null;
  let size = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      size += chunk.length;
      const previous = held;
      held = chunk;
      done(null, previous ?? undefined);
    },
    flush(done) {
      const sha256 = hash.digest('hex');
      if (sameDigest({ sha256, size }, expected)) return done(null, held ?? undefined);
      log({ event: 'release.file_corrupt', level: 'error', key, size, sha256, expected: expected.sha256 });
      done(new Error(`${key} does not match its manifest`));
    },
  });
}
