/** What a background read says of itself, for /healthz and the metrics. */
export interface BackgroundHealth {
  /** Which read: "history", "release pages". */
  read: string;
  /** The last read that succeeded (null before the first). */
  lastSuccessAt: string | null;
  /** Since when reads fail or hang (null while they work). */
  failingSince: string | null;
  problem: string | null;
  /** No good read for longer than allowed: what is answered is older than it should be. */
  stale: boolean;
}

export interface BackgroundReadOptions {
  /** The log event of a failed read ("catalogue.history_read_failed"). */
  failureEvent: string;
  /** How often the value is read again when asked for. */
  refreshMs: number;
  /** A read still under way after this long is given up on (and said); the last good value stays. */
  deadlineMs: number;
  now: () => number;
  log: (event: Record<string, unknown>) => void;
}

/** After a failure, the next try waits this long, doubled each time, up to the refresh interval. */
const FIRST_BACKOFF_MS = 5_000;

/**
 * A value read from outside (the bucket) in the background, for requests that must never wait on
 * it: `value()` answers the last good one at once and, when it is due, starts a read that
 * requests do not wait for. One read at a time: a read that hangs past its deadline is reported
 * failed but not started again while it still hangs (each would hold a thread of the pool for
 * good); a failed read is tried again after a backoff, not on every request.
 */
export class BackgroundRead<T> {
  private last: { value: T; at: number } | null = null;
  private running: { started: number; done: Promise<void> } | null = null;
  private nextAt = -Infinity;
  private failures = 0;
  private failingSince: number | null = null;
  private problem: string | null = null;

  private readonly name: string;
  private readonly read: () => Promise<T>;
  private readonly options: BackgroundReadOptions;

  constructor(name: string, read: () => Promise<T>, options: BackgroundReadOptions) {
    this.name = name;
    this.read = read;
    this.options = options;
  }

  /** The last good value (undefined before the first), starting a read when one is due. */
  value(): T | undefined {
    if (this.options.now() >= this.nextAt) void this.refresh();
    this.giveUpIfHung();
    return this.last?.value;
  }

  /**
   * The value for a request: the last good one, after giving a read that is due `graceMs` to end
   * (a change is then shown at once when the bucket answers as usual, and never waited on longer).
   * With no value yet, waits for the read up to its deadline: there is nothing older to answer with.
   */
  async current(graceMs: number): Promise<T | undefined> {
    if (this.options.now() >= this.nextAt) {
      const reading = this.refresh();
      await (this.last === null ? reading : within(reading, graceMs));
    } else if (this.last === null && this.running) {
      // The first read is under way: there is nothing older to answer with.
      await this.bounded(this.running.done);
    }
    // A read that failed waits out its backoff, whether or not one ever succeeded: never one read a request.
    return this.value();
  }

  /** Whether there is no good value to answer with because reads fail or hang (not merely none yet asked for). */
  unavailable(): boolean {
    this.giveUpIfHung();
    return this.last === null && this.problem !== null;
  }

  /**
   * Reads now unless a read is under way; resolves when it ends or its deadline passes. For the
   * first value, which has nothing older to answer with, and for tests.
   */
  refresh(): Promise<void> {
    this.giveUpIfHung();
    if (this.running) return this.bounded(this.running.done);
    const started = this.options.now();
    this.nextAt = started + this.options.refreshMs;
    const done = this.read().then(
      (value) => {
        this.last = { value, at: this.options.now() };
        this.failures = 0;
        this.failingSince = null;
        this.problem = null;
      },
      (error: unknown) => this.failed((error as Error).message),
    );
    this.running = {
      started,
      done: done.finally(() => {
        if (this.running?.started === started) this.running = null;
      }),
    };
    return this.bounded(this.running.done);
  }

  /**
   * Stale while reads fail or hang and the last good one is older than allowed (counted from the
   * trouble's start when there was none): what is answered is older than it should be. A read
   * nobody asked for since the last good one is not stale: nothing waits for it.
   */
  health(staleAfterMs: number): BackgroundHealth {
    const now = this.options.now();
    this.giveUpIfHung();
    const troubleSince = this.failingSince ?? this.running?.started ?? null;
    return {
      read: this.name,
      lastSuccessAt: this.last ? new Date(this.last.at).toISOString() : null,
      failingSince: this.failingSince === null ? null : new Date(this.failingSince).toISOString(),
      problem: this.problem,
      stale: troubleSince !== null && now - (this.last?.at ?? troubleSince) > staleAfterMs,
    };
  }

  /** Waits for `done`, but no longer than what is left of the running read's deadline. */
  private bounded(done: Promise<void>): Promise<void> {
    const left = this.running ? this.running.started + this.options.deadlineMs - this.options.now() : 0;
    if (left <= 0) return Promise.resolve();
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, left);
      timer.unref();
    });
    return Promise.race([done, deadline]).finally(() => clearTimeout(timer));
  }

  private giveUpIfHung(): void {
    if (!this.running || this.problem !== null) return;
    if (this.options.now() - this.running.started < this.options.deadlineMs) return;
    this.failed(`no answer within ${Math.round(this.options.deadlineMs / 1000)} s`);
  }

  private failed(problem: string): void {
    const now = this.options.now();
    this.failures += 1;
    this.failingSince ??= now;
    this.problem = problem;
    this.nextAt = now + Math.min(this.options.refreshMs, FIRST_BACKOFF_MS * 2 ** (this.failures - 1));
    this.options.log({ event: this.options.failureEvent, error: problem, since: new Date(this.failingSince).toISOString() });
  }
}

/** Settles when `work` does or after `ms`, whichever is first. */
export async function within(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([work, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}
