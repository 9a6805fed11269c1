import { join } from 'node:path';
import type { Settings } from '../config/settings.ts';
import { errors } from '../errors.ts';
import type { Bucket } from './bucket.ts';
import { LocalBucket } from './local-bucket.ts';
import { withWriteFailpoint } from './write-failpoint.ts';

/**
 * Opens the bucket a URI names: `s3://bucket/prefix` for S3-compatible storage, `file:///path` or
 * a plain path for a local folder, nothing for the default `<data-dir>/bucket`.
 *
 * @example await openBucket('s3://releases/tariff', { dataDir: './var', settings, env: process.env })
 */
export async function openBucket(
  uri: string | undefined,
  options: { dataDir: string; settings: Settings; env: NodeJS.ProcessEnv },
): Promise<Bucket> {
  return withWriteFailpoint(await openBucketAt(uri, options), options.env);
}

async function openBucketAt(
  uri: string | undefined,
  options: { dataDir: string; settings: Settings; env: NodeJS.ProcessEnv },
): Promise<Bucket> {
  const value = uri;
  if (!value) return new LocalBucket(join(options.dataDir, 'bucket'));
  if (value.startsWith('s3://')) {
    const match = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,62})(?:\/(.*))?$/.exec(value);
    if (!match) throw errors.usage(`bucket ${value} is not s3://<bucket>[/<prefix>]`);
    // Loaded only for S3: the SDK is large and most commands never need it.
    const { S3Bucket, s3Timeouts } = await import('./s3-bucket.ts');
    const { settings } = options;
    const timeouts = s3Timeouts(settings);
    return new S3Bucket({ bucket: match[1]!, prefix: match[2] ?? '', env: options.env, pathStyle: settings.s3PathStyle, timeouts });
  }
  if (value.startsWith('file://')) return new LocalBucket(new URL(value).pathname);
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) throw errors.usage(`bucket ${value}: only s3:// URIs and local folders are supported`);
  return new LocalBucket(value);
}
