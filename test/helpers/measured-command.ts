import { processMark, type ProcessMark } from './process-tree.ts';
import { runCliProcess, type CliResult } from './run-cli.ts';

export interface MeasuredRun extends CliResult {
  /** The largest resident memory of the command and every process it started, summed, in bytes. */
  peak: number;
  seconds: number;
  /** Its processes, found by their mark (every one started by it, whatever its parent now). */
  mark: ProcessMark;
}

/**
 * Runs `tariff args` as a real process, as an operator does, sampling the memory of the whole
 * command tree (the command and its PDF readers, found by a mark they inherit) every 10 ms until
 * it ends: the figure docs/source-format.md bounds.
 */
export async function measuredCommand(args: string[], env: Record<string, string> = {}): Promise<MeasuredRun> {
  const mark = processMark();
  let peak = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, mark.rss())), 10);
  const started = performance.now();
  try {
    const result = await runCliProcess(args, { env: { ...env, ...mark.env } });
    return { ...result, peak, seconds: (performance.now() - started) / 1000, mark };
  } finally {
    clearInterval(sampler);
  }
}
