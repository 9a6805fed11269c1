import { S3Bucket } from '../../src/storage/s3-bucket.ts';
import type { S3Stand } from '../helpers/s3-server.ts';
import type { Backend } from './paused-writers.ts';

/** The matrices' S3 backend: a prefix of the stand's bucket per scenario, seeded by copying the base prefix. */
export function s3Backend(s3: () => S3Stand): Backend {
  let scenarios = 0;
  const bucketAt = (prefix: string) => new S3Bucket({ bucket: s3().bucket, prefix, env: s3().env, pathStyle: true });
  return {
    name: 'S3',
    get env() {
      return s3().env;
    },
    base: () => ({ uri: `s3://${s3().bucket}/base`, raw: bucketAt('base') }),
    async fresh() {
      const prefix = `scenario-${(scenarios += 1)}`;
      const from = bucketAt('base');
      const to = bucketAt(prefix);
      for (const key of await from.list('')) await to.put(key, (await from.get(key))!, 'application/octet-stream');
      return { uri: `s3://${s3().bucket}/${prefix}`, raw: to };
    },
  };
}
