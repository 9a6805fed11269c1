/** What a step tells as it runs: lines of what it did (or, in a dry run, would do). */
export type StepReport = (step: string, line: string) => void;

/**
 * One step of a pipeline, as data: its name, whether it may run in a dry run (it reads and
 * computes, and changes nothing outside memory), and what it does. A step that is not safe says
 * in a dry run what it would do instead.
 */
export interface Step<S> {
  name: string;
  dryRunSafe: boolean;
  /** A reason to pass over this step in this run (say, nothing changed to publish), or null. */
  skip?: (state: S) => string | null;
  run: (state: S, say: (line: string) => void) => Promise<void>;
  /** In a dry run, for a step that is not safe: what it would do. */
  wouldDo?: (state: S) => Promise<string[]>;
}

export interface RunOptions {
  dryRun?: boolean;
  report?: StepReport;
}

/**
 * Runs steps in order over one state, reporting each: its lines as it goes, `skipped: …` when it
 * has nothing to do, `would …` in a dry run. A failing step stops the run: the error goes up
 * unchanged (the CLI prints it once), after the report names the step that failed.
 *
 * @example await runSteps(RELEASE_STEPS, state, { dryRun: true, report: (step, line) => console.error(`${step}: ${line}`) });
 */
export async function runSteps<S>(steps: readonly Step<S>[], state: S, options: RunOptions = {}): Promise<S> {
  const report = options.report ?? (() => {});
  for (const step of steps) {
    const reason = step.skip?.(state) ?? null;
    if (reason !== null) {
      report(step.name, `skipped: ${reason}`);
      continue;
    }
    if (options.dryRun && !step.dryRunSafe) {
      for (const line of (await step.wouldDo?.(state)) ?? ['run']) report(step.name, `would ${line}`);
      continue;
    }
    try {
      await step.run(state, (line) => report(step.name, line));
    } catch (error) {
      report(step.name, 'failed');
      throw error;
    }
  }
  return state;
}
