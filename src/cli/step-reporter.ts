import cliProgress from 'cli-progress';
import type { CommandContext } from './context.ts';

/**
 * How a long command tells the operator where it is. On a terminal: progress bars for downloads
 * and uploads. Under cron (no TTY): one line per step on stderr, no bars. With --json or --quiet:
 * nothing (errors still reach stderr through the top-level handler).
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

  /** One line for a finished step, e.g. "fetch: https://…/sigarette.xml changed". */
  step(name: string, text: string): void {
    if (this.silent) return;
    const line = `tariff: ${name}: ${text}`;
    // While bars are drawn, lines go through them (above the bars); otherwise straight out.
    if (this.bars && this.active.size > 0) this.bars.log(`${line}\n`);
    else this.ctx.io.stderr.write(`${line}\n`);
  }

  /** Progress of a transfer; drawn only on a terminal. */
  progress(label: string, done: number, total: number | null): void {
    if (!this.bars) return;
    let bar = this.active.get(label);
    if (!bar) {
      bar = this.bars.create(total ?? Math.max(done, 1), 0, { label });
      this.active.set(label, bar);
    }
    if (total === null) bar.setTotal(Math.max(done, 1));
    bar.update(done, { label });
  }

  finish(label: string): void {
    const bar = this.active.get(label);
    if (bar && this.bars) {
      this.bars.remove(bar);
      this.active.delete(label);
    }
  }

  /** The publisher's steps: one line each, and on a terminal a bar over the files uploaded. */
  publishStep(files: number): (step: string, detail: string) => void {
    let uploaded = 0;
    return (step, detail) => {
      if (step === 'upload') this.progress('upload', uploaded++, files);
      else this.finish('upload');
      this.step(step, detail);
    };
  }

  stop(): void {
    this.bars?.stop();
  }
}
