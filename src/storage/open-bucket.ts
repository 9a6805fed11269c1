import { join } from 'node:path';
import { positiveInteger } from '../config/load-settings.ts';
import { errors } from '../errors.ts';
import type { Bucket } from './bucket.ts';
import { LocalBucket } from './local-bucket.ts';

/**
 * Opens the bucket a URI names: `s3://bucket/prefix` for S3-compatible storage, `file:///path` or
 * a plain path for a local folder, nothing for the default `<data-dir>/bucket`.
 *
 * @example await openBucket('s3://releases/tariff', { dataDir: './var', env: process.env })
 */
export async function openBucket(uri: string | undefined, options: { dataDir: string; env: NodeJS.ProcessEnv }): Promise<Bucket> {
  const value = uri ?? options.env.TARIFF_BUCKET;
  if (!value) return new LocalBucket(join(options.dataDir, 'bucket'));
  if (value.startsWith('s3://')) {
    const match = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,62})(?:\/(.*))?$/.exec(value);
    if (!match) throw errors.usage(`bucket ${value} is not s3://<bucket>[/<prefix>]`);
    // Loaded only for S3: the SDK is large and most commands never need it.
    const { S3Bucket, DEFAULT_S3_TIMEOUTS } = await import('./s3-bucket.ts');
    const number = (name: string, fallback: number) => positiveInteger(options.env[name], name) ?? fallback;
    const timeouts = {
      connectMs: number('TARIFF_S3_CONNECT_TIMEOUT_MS', DEFAULT_S3_TIMEOUTS.connectMs),
      idleMs: number('TARIFF_S3_IDLE_TIMEOUT_MS', DEFAULT_S3_TIMEOUTS.idleMs),
      deadlineMs: number('TARIFF_S3_DEADLINE_SECONDS', DEFAULT_S3_TIMEOUTS.deadlineMs / 1000) * 1000,
      attempts: number('TARIFF_S3_ATTEMPTS', DEFAULT_S3_TIMEOUTS.attempts),
    };
    return new S3Bucket({ bucket: match[1]!, prefix: match[2] ?? '', env: options.env, timeouts });
  }
  if (value.startsWith('file://')) return new LocalBucket(new URL(value).pathname);
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) throw errors.usage(`bucket ${value}: only s3:// URIs and local folders are supported`);
  return new LocalBucket(value);
}
