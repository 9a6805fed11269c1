import cliProgress from 'cli-progress';
import type { CommandContext } from './context.ts';

/**
 * How a long command tells the operator where it is. On a terminal: progress bars for downloads.
 * Under cron (no TTY): one line per step on stderr, no bars. With --json or --quiet: nothing
 * (errors still reach stderr through the top-level handler).
 */
export class StepReporter {
  private readonly bars: cliProgress.MultiBar | null;
  private readonly active = new Map<string, cliProgress.SingleBar>();
  private readonly silent: boolean;

  constructor(
    private readonly ctx: CommandContext,
    quiet = false,
  ) {
    this.silent = quiet || ctx.json;
    const stream = ctx.io.stderr as NodeJS.WriteStream;
    this.bars =
      !this.silent && stream.isTTY
        ? new cliProgress.MultiBar(
            { stream, format: ' {bar} {percentage}% | {label}', hideCursor: true, clearOnComplete: true, stopOnComplete: false },
            cliProgress.Presets.shades_classic,
          )
        : null;
  }

  /** One line of a step, e.g. "fetch: https://…/sigarette.xml changed" (the pipeline's report). */
  readonly step = (name: string, text: string): void => {
    if (this.silent) return;
    const line = `tariff: ${name}: ${text}`;
    // While bars are drawn, lines go through them (above the bars); otherwise straight out.
    if (this.bars && this.active.size > 0) this.bars.log(`${line}\n`);
    else this.ctx.io.stderr.write(`${line}\n`);
  };

  /** Progress of a transfer; drawn only on a terminal. */
  readonly progress = (label: string, done: number, total: number | null): void => {
    if (!this.bars) return;
    let bar = this.active.get(label);
    if (!bar) {
      bar = this.bars.create(total ?? Math.max(done, 1), 0, { label });
      this.active.set(label, bar);
    }
    if (total === null) bar.setTotal(Math.max(done, 1));
    bar.update(done, { label });
  };

  readonly finish = (label: string): void => {
    const bar = this.active.get(label);
    if (bar && this.bars) {
      this.bars.remove(bar);
      this.active.delete(label);
    }
  };

  stop(): void {
    this.bars?.stop();
  }
}
