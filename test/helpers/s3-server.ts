import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';
import { conditionalProxy, type ConditionalProxy } from './s3-conditional-proxy.ts';
import { makeWritesAtomic } from './s3rver-atomic-writes.ts';

export interface S3Stand {
  /** Where clients reach the store: the stand-in that honours conditional writes, as AWS S3, MinIO and R2 do. */
  endpoint: string;
  /** s3rver itself, which ignores conditional writes (a store an operator may still meet). */
  rawEndpoint: string;
  bucket: string;
  /** The environment a `tariff` process needs to reach it, through the SDK's standard variables. */
  env: Record<string, string>;
  /** The stand-in in front (its count of refused conditions, and a stop after a chosen request). */
  conditions: ConditionalProxy;
  close(): Promise<void>;
}

/**
 * A real S3-protocol server (s3rver) on an ephemeral loopback port, with one empty bucket, its
 * writes whole before they are answered (makeWritesAtomic), behind a stand-in that honours
 * conditional PUTs (s3rver ignores them).
 */
export async function startS3(bucket = 'tariff-releases'): Promise<S3Stand> {
  const directory = await mkdtemp(join(tmpdir(), 'tariff-s3-'));
  const server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory, configureBuckets: [{ name: bucket, configs: [] }] });
  makeWritesAtomic(server.store);
  const { port } = await server.run();
  const rawEndpoint = `http://127.0.0.1:${port}`;
  const credentials = { AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER', AWS_REGION: 'us-east-1' };
  const conditions = await conditionalProxy({ endpoint: rawEndpoint, credentials });
  return {
    endpoint: conditions.url,
    rawEndpoint,
    bucket,
    env: { AWS_ENDPOINT_URL_S3: conditions.url, ...credentials, TARIFF_S3_PATH_STYLE: 'true' },
    conditions,
    async close() {
      await conditions.close();
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}
