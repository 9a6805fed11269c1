import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync, constants } from 'node:zlib';

/**
 * Compresses with a gzip header that carries no file name and a zero modification time, so the
 * same bytes in give the same bytes out on every machine and every day.
 */
export function gzipDeterministic(data: Uint8Array): Buffer {
  return gzipSync(data, { level: 9, memLevel: 9, strategy: constants.Z_DEFAULT_STRATEGY });
}

export function gunzip(data: Uint8Array, maxBytes = 2 * 1024 ** 3): Buffer {
  return gunzipSync(data, { maxOutputLength: maxBytes });
}

export function sha256Hex(data: Uint8Array | string): string {
  return createHash('sha256').update(data).digest('hex');
}
