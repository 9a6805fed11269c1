import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startS3, type S3Stand } from '../helpers/s3-server.ts';
import { expectedWrites } from './expected-writes.ts';
import { fixedCore, momentsOf, planned, wholeMatrix, type Scenario } from './matrix-plan.ts';
import {
  A_COMMANDS,
  B_COMMANDS,
  close,
  pausedWriterCases,
  pausePair,
  prepare,
  recordWrites,
  RIVAL,
  type Base,
  type Command,
} from './paused-writers.ts';
import { matrixChoice } from './proven.ts';
import { s3Backend } from './s3-backend.ts';
import { endWritersAfterEachTest } from './writers.ts';

// The pause matrix on Ceph's RADOS Gateway, nothing between the writers and the store
// (test/paused/paused-writers.ts): the fixed core and a slice of the rotation, or whole
// (test/paused/matrix-plan.ts, proven.ts).
let s3: S3Stand;
let base: Base;
let plan: Scenario[] = [];
const lists = new Map<Command, string[]>();
const backend = s3Backend(() => s3);
const choice = matrixChoice();
endWritersAfterEachTest();

beforeAll(async () => {
  s3 = await startS3();
  base = await prepare(backend);
  for (const a of A_COMMANDS) lists.set(a, await recordWrites(backend, base, a));
  const pairs = A_COMMANDS.flatMap((a) => B_COMMANDS.map((b) => [a, b] as const));
  plan = planned(wholeMatrix(lists, pairs), fixedCore(lists, RIVAL), choice);
  console.log(`S3 pause matrix: ${plan.length} scenarios (${choice.why})`);
});
afterAll(async () => {
  await close(base);
  await s3?.close();
});

describe('an S3 bucket: what each command writes, alone', () => {
  it.each(A_COMMANDS)('%s makes the writes of its expected list, in order (a new write shows here)', (a) => {
    expectedWrites('S3', a, lists.get(a)!);
  });
});

describe.each(A_COMMANDS)('an S3 bucket: %s stopped before its writes', (a) => {
  it.for(B_COMMANDS)(
    `while %s runs to its end: B's work intact, current.json moved by reported switches, the bucket verifying, A's report true`,
    async (b, { skip }) => {
      const moments = momentsOf(plan, a, b);
      if (moments.length === 0) return skip(`no moment of this pair in this run (${choice.why})`);
      expect(await pausePair(backend, base, a, b, lists.get(a)!.length, { moments })).toBe(moments.length);
    },
  );
});

describe('an S3 bucket: the cases of a paused writer, one by one', () => {
  pausedWriterCases(backend, () => base);
});
