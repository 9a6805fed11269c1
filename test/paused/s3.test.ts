import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { S3Bucket } from '../../src/storage/s3-bucket.ts';
import { startS3, type S3Stand } from '../helpers/s3-server.ts';
import { A_COMMANDS, B_COMMANDS, close, pausedWriterCases, pausePair, prepare, type Backend, type Base } from './paused-writers.ts';

// The pause matrix on the S3 stand-in that honours conditional writes (test/paused/paused-writers.ts).
let s3: S3Stand;
let base: Base;
let scenarios = 0;
const bucketAt = (prefix: string) => new S3Bucket({ bucket: s3.bucket, prefix, env: s3.env, pathStyle: true });
const backend: Backend = {
  name: 'S3',
  get env() {
    return s3.env;
  },
  base: () => ({ uri: `s3://${s3.bucket}/base`, raw: bucketAt('base') }),
  async fresh() {
    const prefix = `scenario-${(scenarios += 1)}`;
    const from = bucketAt('base');
    const to = bucketAt(prefix);
    for (const key of await from.list('')) await to.put(key, (await from.get(key))!, 'application/octet-stream');
    return { uri: `s3://${s3.bucket}/${prefix}`, raw: to };
  },
};

beforeAll(async () => {
  s3 = await startS3();
  base = await prepare(backend);
});
afterAll(async () => {
  await close(base);
  await s3?.close();
});

describe.each(A_COMMANDS)('an S3 bucket: %s stopped before each of its writes', (a) => {
  it.each(B_COMMANDS)(
    `while %s runs to its end: B's work intact, current.json moved by reported switches, the bucket verifying, A's report true`,
    async (b) => {
      const moments = await pausePair(backend, base, a, b);
      expect(moments, 'A was stopped at one write at least').toBeGreaterThan(0);
    },
  );
});

describe('an S3 bucket: the cases of a paused writer, one by one', () => {
  pausedWriterCases(backend, () => base);
});
