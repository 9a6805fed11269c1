import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { processMark } from './process-tree.ts';
import { CLI } from './run-cli.ts';
import { waitFor } from './wait-for.ts';

export interface StoppedBuild {
  /** Its exit code, or the signal that ended it; 'still running' past the guard. */
  status: number | string | null;
  /** From the signal to the exit. */
  seconds: number;
  /** Its processes still alive 10 s after it ended (none, as promised). */
  left: number[];
}

/** Far beyond any stop: a guard against a hang, not a speed claim (bench:pdf-limits measures the stop). */
const HANG_GUARD_MS = 30_000;

/**
 * `tariff build` of `file`, stopped by SIGTERM once its readers are reading, `moment` turns of the
 * event loop later (a later moment: the reading, the walking of its tables, the refusal), as an
 * operator's stop meets it, with its data dir and output in `dataDir`. For the hostile-document
 * tests and bench:pdf-limits.
 */
export async function stoppedBuild(file: string, moment: number, dataDir: string): Promise<StoppedBuild> {
  const mark = processMark();
  const child = spawn(process.execPath, [CLI, 'build', '--source', file, '--out', join(dataDir, 'out'), '--data-dir', dataDir], {
    stdio: 'ignore',
    env: { ...process.env, ...mark.env },
  });
  let ended = false;
  const exited = new Promise<{ at: number; status: number | string | null }>((resolve) =>
    child.once('exit', (code, signal) => {
      ended = true;
      resolve({ at: performance.now(), status: code ?? signal });
    }),
  );
  try {
    await waitFor(() => ended || mark.pids('page-runs-worker').length > 0, 'the command to be reading', 60_000);
    for (let i = 0; i < moment * 5; i++) await new Promise((resolve) => setImmediate(resolve));
    const signalled = performance.now();
    child.kill('SIGTERM');
    const guard = new Promise<{ at: number; status: 'still running' }>((resolve) =>
      setTimeout(() => resolve({ at: performance.now(), status: 'still running' }), HANG_GUARD_MS).unref(),
    );
    const { at, status } = await Promise.race([exited, guard]);
    await waitFor(() => mark.pids().length === 0, 'every process of the build to end', 10_000).catch(() => undefined);
    return { status, seconds: Math.max(0, at - signalled) / 1000, left: mark.pids() };
  } finally {
    child.kill('SIGKILL');
    for (const pid of mark.pids()) process.kill(pid, 'SIGKILL');
  }
}
