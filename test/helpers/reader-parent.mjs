// A command's stand-in for test/e2e/reader-exits.test.ts: starts one PDF reader, gives it a
// document that takes it many seconds, and says "reading" once the reader has begun it. The test
// then kills this process (alone, or with its process group) while the reader reads.
import { fork } from 'node:child_process';

const [path, job] = process.argv.slice(2);
const reader = fork(new URL('../../src/source/pdf/page-runs-worker.mjs', import.meta.url), [], {
  serialization: 'advanced',
  stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
});
// The job's limits and tolerances, as the test passes them (READER_LIMITS, TOLERANCES of
// src/source/pdf/reader-tolerances.ts): one definition of each.
const { limits, tolerances } = JSON.parse(job);
reader.on('message', (reply) => {
  if (reply.stage === 'started') process.stdout.write(`reading ${reader.pid}\n`);
});
reader.send({ id: 1, path, offset: 0, stride: 1, limits, tolerances });
