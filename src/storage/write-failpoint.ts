import { appendFileSync } from 'node:fs';
import { isMainThread } from 'node:worker_threads';
import { beforeWrites } from './before-writes.ts';
import type { Bucket } from './bucket.ts';

/**
 * A failpoint for the tests of paused writers (test/e2e/paused-writers.test.ts), off unless its
 * variables are set: with TARIFF_TEST_BUCKET_WRITES=<file>, every write this process makes to a
 * bucket is appended to that file as one line ("create releases/…/dataset.json.gz") just before it
 * is made; with TARIFF_TEST_PAUSE_BEFORE_WRITE=<n> (or =<line>, "swap current.json") as well, the
 * process stops itself (SIGSTOP) right there before its nth write (or its first write of that line),
 * as a long GC pause, a VM migration or a closed laptop would stop it between its last check and
 * its write, and goes on from there when sent SIGCONT.
 *
 * Run in a worker thread (test/paused/writer-threads.ts keeps one warm, so a scenario does not pay a
 * process's start), the stop is its host's: the function it put at WORKER_STOP, which blocks the
 * thread (Atomics.wait freezes its timers, lease renewal and sockets as SIGSTOP freezes a process).
 * A SIGSTOP there would stop the host's whole process.
 */
export function withWriteFailpoint(bucket: Bucket, env: NodeJS.ProcessEnv): Bucket {
  const log = env.TARIFF_TEST_BUCKET_WRITES;
  if (!log) return bucket;
  const pause = env.TARIFF_TEST_PAUSE_BEFORE_WRITE ?? '';
  const pauseAt = /^\d+$/.test(pause) ? Number(pause) : 0;
  let writes = 0;
  let paused = false;
  return beforeWrites(bucket, (kind, keys) => {
    writes += 1;
    const line = `${kind} ${keys.join(' ')}`;
    appendFileSync(log, `${line}\n`);
    if (paused || (writes !== pauseAt && (pauseAt > 0 || pause === '' || !line.startsWith(pause)))) return;
    paused = true;
    stop(line);
  });
}

/** Where a worker thread's host puts the failpoint's stop (a function of the line stopped before). */
export const WORKER_STOP = Symbol.for('tariff.test.writeFailpointStop');

function stop(line: string): void {
  const host = (globalThis as { [WORKER_STOP]?: (line: string) => void })[WORKER_STOP];
  if (!isMainThread) {
    if (!host) throw new Error('a write failpoint in a worker thread needs its host to give the stop (WORKER_STOP)');
    host(line);
  } else process.kill(process.pid, 'SIGSTOP');
}
