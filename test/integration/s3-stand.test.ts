import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startIgnoringS3, type S3Stand } from '../helpers/s3-server.ts';

// The tests' S3 store must keep what every S3 store promises a client, or a test of the product
// fails for the stand-in's fault (seen: a publish read back a cut `current.json` on a busy machine).
let s3: S3Stand;
let client: S3Client;
beforeAll(async () => {
  s3 = await startIgnoringS3();
  client = new S3Client({
    endpoint: s3.endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: s3.env.AWS_ACCESS_KEY_ID!, secretAccessKey: s3.env.AWS_SECRET_ACCESS_KEY! },
  });
});
afterAll(async () => {
  client.destroy();
  await s3.close();
});

const body = (fill: number) => Buffer.alloc(4 * 1024 * 1024, fill);
const put = (key: string, bytes: Buffer) => client.send(new PutObjectCommand({ Bucket: s3.bucket, Key: key, Body: bytes }));
const get = async (key: string) =>
  Buffer.from(await (await client.send(new GetObjectCommand({ Bucket: s3.bucket, Key: key }))).Body!.transformToByteArray());

describe('the S3 store that ignores conditions (s3rver) the tests use', () => {
  it('answers a PUT once the object is whole: a GET right after it reads every byte, 20 times over', async () => {
    for (let round = 0; round < 20; round++) {
      const bytes = body(round);
      await put('whole', bytes);
      expect((await get('whole')).equals(bytes), `round ${round}`).toBe(true);
    }
  });

  it('shows a read during an overwrite the old object or the new one, never a mix or a cut', async () => {
    const [old, fresh] = [body(1), body(2)];
    await put('swapped', old);
    for (let round = 0; round < 10; round++) {
      const reads = Array.from({ length: 4 }, () => get('swapped'));
      await put('swapped', round % 2 === 0 ? fresh : old);
      for (const read of await Promise.all(reads)) expect(read.equals(old) || read.equals(fresh), `round ${round}`).toBe(true);
    }
  });
});
