/** What a step tells as it runs: lines of what it did (or, in a dry run, would do). */
export type StepReport = (step: string, line: string) => void;

/** A step's own voice: its lines, reported under its name. */
export type Say = (line: string) => void;

export interface RunOptions {
  dryRun?: boolean;
  report?: StepReport;
}

/** A step that changes something outside memory (writes a folder, uploads, switches the current release). */
export interface Effect<T> {
  run: (say: Say) => Promise<T>;
  /** What it would do, said in a dry run instead of running it. */
  wouldDo: () => string[];
}

/**
 * Runs a pipeline's steps as plain typed calls: each step takes what it needs as arguments and
 * returns what it makes, and the runner reports it under its name. A step that only reads and
 * computes runs in a dry run too; one that changes things says `would …` instead. A failing step
 * stops the run: the error goes up unchanged (the CLI prints it once) after `<step>: failed`.
 *
 * @example const runner = new StepRunner({ dryRun: true, report: (step, line) => console.error(`${step}: ${line}`) });
 */
export class StepRunner {
  readonly dryRun: boolean;
  /** Milliseconds each step took (summed when a name runs more than once): what `--json` reports as `steps`. */
  readonly timings: Record<string, number> = {};
  private readonly report: StepReport;

  constructor(options: RunOptions = {}) {
    this.dryRun = options.dryRun ?? false;
    this.report = options.report ?? (() => {});
  }

  /** A step that reads and computes, changing nothing outside memory (or a private scratch folder). */
  compute<T>(name: string, work: (say: Say) => T | Promise<T>): Promise<T> {
    return this.attempt(name, work);
  }

  /** A step that changes things: run, or in a dry run said and not run (null). */
  async effect<T>(name: string, effect: Effect<T>): Promise<T | null> {
    if (!this.dryRun) return this.attempt(name, effect.run);
    for (const line of effect.wouldDo()) this.report(name, `would ${line}`);
    return null;
  }

  /** A step passed over in this run, with the reason (say, nothing changed to publish). */
  skip(name: string, reason: string): void {
    this.report(name, `skipped: ${reason}`);
  }

  private async attempt<T>(name: string, work: (say: Say) => T | Promise<T>): Promise<T> {
    const start = performance.now();
    try {
      return await work((line) => this.report(name, line));
    } catch (error) {
      this.report(name, 'failed');
      throw error;
    } finally {
      this.timings[name] = Math.round((this.timings[name] ?? 0) + performance.now() - start);
    }
  }
}
