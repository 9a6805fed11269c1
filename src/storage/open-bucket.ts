import { join } from 'node:path';
import type { Settings } from '../config/settings.ts';
import { errors } from '../errors.ts';
import { builderVersion } from '../util/builder-version.ts';
import type { Bucket } from './bucket.ts';
import { formatChecked, PLAIN_COPIES } from './bucket-format.ts';
import { LocalBucket } from './local-bucket.ts';
import { withWriteFailpoint } from './write-failpoint.ts';

/**
 * Opens the bucket a URI names: `s3://bucket/prefix` for S3-compatible storage, `file:///path` or
 * a plain path for a local folder, nothing for the default `<data-dir>/bucket`. Its format is
 * checked before the first read and the first write (bucket-format.ts): a bucket of a newer
 * format is refused by name, one of the older layout upgraded by the first write.
 *
 * @example await openBucket('s3://releases/tariff', { dataDir: './var', settings, env: process.env })
 */
export async function openBucket(
  uri: string | undefined,
  options: { dataDir: string; settings: Settings; env: NodeJS.ProcessEnv },
): Promise<Bucket> {
  // The format's own write is not one of the command's: the failpoint counts the command's.
  return withWriteFailpoint(formatChecked(await openBucketAt(uri, options), `tariff ${builderVersion()}`), options.env);
}

async function openBucketAt(
  uri: string | undefined,
  options: { dataDir: string; settings: Settings; env: NodeJS.ProcessEnv },
): Promise<Bucket> {
  const value = uri;
  if (!value) return new LocalBucket(join(options.dataDir, 'bucket'), { plainCopies: PLAIN_COPIES });
  if (value.startsWith('s3://')) {
    const match = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,62})(?:\/(.*))?$/.exec(value);
    if (!match) throw errors.usage(`bucket ${value} is not s3://<bucket>[/<prefix>]`);
    // Loaded only for S3: the SDK is large and most commands never need it.
    const { S3Bucket, s3Timeouts } = await import('./s3-bucket.ts');
    const { settings } = options;
    const timeouts = s3Timeouts(settings);
    return new S3Bucket({ bucket: match[1]!, prefix: match[2] ?? '', env: options.env, pathStyle: settings.s3PathStyle, timeouts });
  }
  if (value.startsWith('file://')) return new LocalBucket(new URL(value).pathname, { plainCopies: PLAIN_COPIES });
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) throw errors.usage(`bucket ${value}: only s3:// URIs and local folders are supported`);
  return new LocalBucket(value, { plainCopies: PLAIN_COPIES });
}
