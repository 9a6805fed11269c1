import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalBucket } from '../../src/storage/local-bucket.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import { expectedWrites } from './expected-writes.ts';
import {
  A_COMMANDS,
  B_COMMANDS,
  close,
  pausedWriterCases,
  pausePair,
  prepare,
  recordWrites,
  type Backend,
  type Base,
  type Command,
} from './paused-writers.ts';
import { endAll, endWritersAfterEachTest, startWriter } from './writers.ts';

// The pause matrix on a folder bucket (test/paused/paused-writers.ts), whole every time: npm run
// test:paused, its own step in .ci/run.
let base: Base;
const lists = new Map<Command, string[]>();
const backend: Backend = {
  name: 'folder',
  env: {},
  base: (root) => ({ uri: join(root, 'base-bucket'), raw: new LocalBucket(join(root, 'base-bucket')) }),
  async fresh({ root }) {
    const folder = join(await tempDir(), 'bucket');
    cpSync(join(root, 'base-bucket'), folder, { recursive: true });
    return { uri: folder, raw: new LocalBucket(folder) };
  },
};
endWritersAfterEachTest();

beforeAll(async () => {
  base = await prepare(backend);
  for (const a of A_COMMANDS) lists.set(a, await recordWrites(backend, base, a));
});
afterAll(async () => {
  await close(base);
});

describe('a folder bucket: what each command writes, alone', () => {
  it.each(A_COMMANDS)('%s makes the writes of its expected list, in order (a new write shows here)', (a) => {
    expectedWrites('folder', a, lists.get(a)!);
  });
});

describe.each(A_COMMANDS)('a folder bucket: %s stopped before each of its writes', (a) => {
  it.each(B_COMMANDS)(
    `while %s runs to its end: B's work intact, current.json moved by reported switches, the bucket verifying, A's report true`,
    async (b) => {
      const moments = await pausePair(backend, base, a, b, lists.get(a)!.length);
      expect(moments, 'A was stopped at one write at least').toBeGreaterThan(0);
    },
  );
});

describe('a folder bucket: a writer a test leaves stopped', () => {
  it.for(['process', 'thread'] as const)('as a %s, is ended with the test, never left behind', async (kind) => {
    const { uri } = await backend.fresh(base);
    const dataDir = join(await tempDir(), 'A');
    cpSync(base.template, dataDir, { recursive: true });
    const log = join(dataDir, 'writes.log');
    const writer = startWriter(kind, ['rollback', '20261101.1', '--bucket', uri, '--data-dir', dataDir], {
      TARIFF_TEST_BUCKET_WRITES: log,
      TARIFF_TEST_PAUSE_BEFORE_WRITE: '1',
    });
    await expect.poll(() => writer.stopped(), { timeout: 60_000, interval: 5 }).toBe(true);
    endAll();
    const result = await writer.exited;
    expect(writer.ended()).toBe(true);
    // Killed where it stood (a process by SIGKILL, a thread ended with its worker): its write never made.
    expect(result.status).not.toBe(0);
  });
});

describe('a folder bucket: the cases of a paused writer, one by one', () => {
  pausedWriterCases(backend, () => base);
});
