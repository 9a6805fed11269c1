import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { CreateBucketCommand, DeleteBucketCommand, DeleteObjectsCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';
import { storeProxy, type StoreProxy } from './s3-store-proxy.ts';
import { makeWritesAtomic } from './s3rver-atomic-writes.ts';

export interface S3Credentials {
  AWS_ACCESS_KEY_ID: string;
  AWS_SECRET_ACCESS_KEY: string;
}

export interface S3Stand {
  /** Where clients reach the store itself, nothing in between. */
  endpoint: string;
  bucket: string;
  credentials: S3Credentials;
  /** The environment a `tariff` process needs to reach it, through the SDK's standard variables. */
  env: Record<string, string>;
  /**
   * A proxy of the test's own in front of the store, for the faults a network makes (a store gone
   * after a chosen request, a writer frozen there) and a count of the store's refusals. It passes
   * conditions on to the store, which decides them.
   */
  proxy(): Promise<StoreProxy>;
  close(): Promise<void>;
}

/** What scripts/start-rgw.sh printed: from .ci/run's environment, or the file test/setup/rgw.ts has it write. */
async function rgwSettings(): Promise<{ endpoint: string; credentials: S3Credentials }> {
  let text = '';
  if (process.env.TARIFF_TEST_RGW_ENDPOINT) {
    text = `TARIFF_TEST_RGW_ENDPOINT=${process.env.TARIFF_TEST_RGW_ENDPOINT}\nTARIFF_TEST_RGW_ACCESS_KEY=${process.env.TARIFF_TEST_RGW_ACCESS_KEY}\nTARIFF_TEST_RGW_SECRET_KEY=${process.env.TARIFF_TEST_RGW_SECRET_KEY}\n`;
  } else {
    const file = process.env.TARIFF_TEST_RGW_ENV_FILE;
    if (!file)
      throw new Error('No RADOS Gateway: run the suite through vitest (test/setup/rgw.ts), or eval "$(bash scripts/start-rgw.sh)"');
    // The gateway starts beside the first files (about 10 s): waited for here, at most 3 minutes.
    for (let waited = 0; !existsSync(file); waited += 100) {
      if (waited > 180_000) throw new Error(`The RADOS Gateway did not start within 3 minutes (${file}.err)`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    text = readFileSync(file, 'utf8');
    if (readFileSync(`${file}.status`, 'utf8').trim() !== '0')
      throw new Error(`scripts/start-rgw.sh failed: ${readFileSync(`${file}.err`, 'utf8').trim()}`);
  }
  const value = (name: string) => new RegExp(`^${name}=(\\S+)$`, 'm').exec(text)?.[1] ?? '';
  return {
    endpoint: value('TARIFF_TEST_RGW_ENDPOINT'),
    credentials: { AWS_ACCESS_KEY_ID: value('TARIFF_TEST_RGW_ACCESS_KEY'), AWS_SECRET_ACCESS_KEY: value('TARIFF_TEST_RGW_SECRET_KEY') },
  };
}

/**
 * A bucket of its own on Ceph's RADOS Gateway (16, from Debian: one monitor, one memstore OSD, on
 * loopback), which honours conditional writes its own way (If-Match only with a bare tag): what
 * the product meets in production, not a model of it. Emptied and removed on close.
 */
export async function startS3(): Promise<S3Stand> {
  const { endpoint, credentials } = await rgwSettings();
  const bucket = `tariff-${randomBytes(6).toString('hex')}`;
  const client = new S3Client({
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: credentials.AWS_ACCESS_KEY_ID, secretAccessKey: credentials.AWS_SECRET_ACCESS_KEY },
  });
  await client.send(new CreateBucketCommand({ Bucket: bucket }));
  return stand(endpoint, bucket, credentials, async () => {
    // Memstore keeps every object in memory: each stand takes its own away.
    for (let token: string | undefined, pages = 0; pages < 1000; pages += 1) {
      const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, ContinuationToken: token }));
      const keys = (page.Contents ?? []).map((object) => ({ Key: object.Key! }));
      if (keys.length > 0) await client.send(new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: keys, Quiet: true } }));
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
      if (!token) break;
    }
    await client.send(new DeleteBucketCommand({ Bucket: bucket })).catch(() => {});
    client.destroy();
  });
}

/**
 * A store that ignores conditional writes (s3rver, a real S3-protocol server with its writes made
 * whole before they are answered): what an operator may still meet, and must be warned about.
 */
export async function startIgnoringS3(bucket = 'tariff-releases'): Promise<S3Stand> {
  const directory = await mkdtemp(join(tmpdir(), 'tariff-s3-'));
  const server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory, configureBuckets: [{ name: bucket, configs: [] }] });
  makeWritesAtomic(server.store);
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  const credentials = { AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER' };
  return stand(endpoint, bucket, credentials, async () => {
    await server.close();
    await rm(directory, { recursive: true, force: true });
  });
}

/** A stand on `endpoint`: the SDK's variables to reach it, its proxies, and what its close ends. */
function stand(endpoint: string, bucket: string, credentials: S3Credentials, end: () => Promise<void>): S3Stand {
  const proxies: StoreProxy[] = [];
  return {
    endpoint,
    bucket,
    credentials,
    env: { AWS_ENDPOINT_URL_S3: endpoint, ...credentials, AWS_REGION: 'us-east-1', TARIFF_S3_PATH_STYLE: 'true' },
    async proxy() {
      const proxy = await storeProxy({ endpoint });
      proxies.push(proxy);
      return proxy;
    },
    async close() {
      for (const proxy of proxies) await proxy.close();
      await end();
    },
  };
}
