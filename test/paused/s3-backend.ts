import { CopyObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { S3Bucket } from '../../src/storage/s3-bucket.ts';
import type { S3Stand } from '../helpers/s3-server.ts';
import type { Backend } from './paused-writers.ts';

/**
 * The matrices' S3 backend: a prefix of the stand's bucket per scenario, seeded from the base
 * prefix by the store's own copies, side by side (a scenario's seeding took 0.9 s of its 3 s one by one).
 */
export function s3Backend(s3: () => S3Stand): Backend {
  let scenarios = 0;
  let client: S3Client | null = null;
  const bucketAt = (prefix: string) => new S3Bucket({ bucket: s3().bucket, prefix, env: s3().env, pathStyle: true });
  return {
    name: 'S3',
    get env() {
      return s3().env;
    },
    base: () => ({ uri: `s3://${s3().bucket}/base`, raw: bucketAt('base') }),
    async fresh() {
      const prefix = `scenario-${(scenarios += 1)}`;
      const { bucket, endpoint, credentials } = s3();
      client ??= new S3Client({
        endpoint,
        region: 'us-east-1',
        forcePathStyle: true,
        credentials: { accessKeyId: credentials.AWS_ACCESS_KEY_ID, secretAccessKey: credentials.AWS_SECRET_ACCESS_KEY },
      });
      const keys = await bucketAt('base').list('');
      for (let i = 0; i < keys.length; i += 16)
        await Promise.all(
          keys.slice(i, i + 16).map((key) =>
            client!.send(
              new CopyObjectCommand({
                Bucket: bucket,
                Key: `${prefix}/${key}`,
                CopySource: `${bucket}/base/${encodeURIComponent(key).replaceAll('%2F', '/')}`,
              }),
            ),
          ),
        );
      return { uri: `s3://${bucket}/${prefix}`, raw: bucketAt(prefix) };
    },
  };
}
