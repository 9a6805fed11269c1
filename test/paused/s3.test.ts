import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startS3, type S3Stand } from '../helpers/s3-server.ts';
import { A_COMMANDS, B_COMMANDS, close, pausedWriterCases, pausePair, prepare, type Base } from './paused-writers.ts';
import { s3Backend } from './s3-backend.ts';

// The pause matrix on Ceph's RADOS Gateway, nothing between the writers and the store (test/paused/paused-writers.ts).
let s3: S3Stand;
let base: Base;
const backend = s3Backend(() => s3);

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
