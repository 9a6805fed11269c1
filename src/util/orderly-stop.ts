import { constants } from 'node:os';

/**
 * What a command has begun that a stop must finish: a lease or lock to let go, a temporary file to
 * remove. Registered while it holds it, unregistered once done (the function returned).
 */
export interface StopTask {
  /** What the stop does, as its line says it ("the writer lease of s3://…/ let go"). */
  what: string;
  undo: () => Promise<void> | void;
}

const tasks = new Set<StopTask>();
let claimed = false;
let stoppingSince: number | null = null;

/**
 * A signal again within this time of the first is the same stop delivered twice (to the process
 * group by `timeout` or systemd, and passed on by the launcher); later, it is someone insisting.
 */
const REPEAT_MS = 1_000;

/** The time a stop gives its tasks (a bucket to let go of may hang): then the command exits all the same. */
export const STOP_GRACE_MS = 5_000;

/** Whether a stop on a signal is under way: what fails after it (a lease let go under a run) is its doing, not news. */
export function stopping(): boolean {
  return stoppingSince !== null;
}

/** Registers what a stop must undo; returns the function that unregisters it once done. */
export function onStop(task: StopTask): () => void {
  tasks.add(task);
  return () => void tasks.delete(task);
}

/** A command that handles SIGINT and SIGTERM itself (`serve`: its requests in flight) takes them over. */
export function claimSignals(): void {
  claimed = true;
}

/**
 * The command's stop on SIGINT and SIGTERM: what it holds is let go (tasks registered with
 * `onStop`, each given STOP_GRACE_MS at most), one line says what was stopped and what was let go,
 * and it exits with 128 + the signal's number (130, 143), as the shell reports a signal (0 when
 * `clean`: `serve`, whose stop is how it ends, stopped while it starts). A signal
 * again during the stop exits at once, unless it is the first one delivered twice (REPEAT_MS).
 * Installed by the program (bin/tariff.js), never by a test that runs the CLI in its own process.
 */
export function stopOnSignals(
  write: (line: string) => void,
  exit: (status: number) => void = (status) => process.exit(status),
  { clean = false }: { clean?: boolean } = {},
): void {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (claimed) return;
      // A command whose stop is how it ends (`serve`, clean): exit 0 even while it starts.
      const status = clean ? 0 : 128 + constants.signals[signal];
      if (stoppingSince !== null) {
        if (performance.now() - stoppingSince >= REPEAT_MS) exit(status);
        return;
      }
      stoppingSince = performance.now();
      const held = [...tasks];
      const undone = held.length > 0 ? ` (${held.map((task) => task.what).join(', ')})` : '';
      write(
        clean
          ? `tariff: stopped by ${signal} while starting${undone}\n`
          : `tariff: stopped by ${signal} before it finished${undone}; what it did not finish is left for the next run\n`,
      );
      const undo = Promise.allSettled(held.map(async (task) => task.undo()));
      const grace = new Promise((resolve) => setTimeout(resolve, STOP_GRACE_MS).unref());
      void Promise.race([undo, grace]).then(() => exit(status));
    });
  }
}
