import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalBucket } from '../../src/storage/local-bucket.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import { A_COMMANDS, B_COMMANDS, close, pausedWriterCases, pausePair, prepare, type Backend, type Base } from './paused-writers.ts';

// The pause matrix on a folder bucket (test/paused/paused-writers.ts): npm run test:paused, its own step in .ci/run.
let base: Base;
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

beforeAll(async () => {
  base = await prepare(backend);
});
afterAll(async () => {
  await close(base);
});

describe.each(A_COMMANDS)('a folder bucket: %s stopped before each of its writes', (a) => {
  it.each(B_COMMANDS)(
    `while %s runs to its end: B's work intact, current.json moved by reported switches, the bucket verifying, A's report true`,
    async (b) => {
      const moments = await pausePair(backend, base, a, b);
      expect(moments, 'A was stopped at one write at least').toBeGreaterThan(0);
    },
  );
});

describe('a folder bucket: the cases of a paused writer, one by one', () => {
  pausedWriterCases(backend, () => base);
});
