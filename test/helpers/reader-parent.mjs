// A command's stand-in for test/e2e/reader-exits.test.ts: starts one PDF reader, gives it a
// document that takes it many seconds, and says "reading" once the reader has begun it. The test
// then kills this process (alone, or with its process group) while the reader reads.
import { fork } from 'node:child_process';

const [path] = process.argv.slice(2);
const reader = fork(new URL('../../src/source/pdf/page-runs-worker.mjs', import.meta.url), [], {
  serialization: 'advanced',
  stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
});
// READER_LIMITS and TOLERANCES of src/source/pdf/reader-tolerances.ts, as far as a reader uses them (this file is plain JavaScript).
const limits = {
  objectsPerPage: 100_000,
  charsPerPage: 200_000,
  runsPerPage: 100_000,
  pagesPerDocument: 2_000,
  charsPerDocument: 4_000_000,
  objectsPerDocument: 2_000_000,
  heapBytes: 48 * 1024 * 1024,
};
const tolerances = { runBreakForward: 0.6, runBreakBack: 0.2, wordGap: 0.15 };
reader.on('message', (reply) => {
  if (reply.stage === 'started') process.stdout.write(`reading ${reader.pid}\n`);
});
reader.send({ id: 1, path, offset: 0, stride: 1, limits, tolerances });
