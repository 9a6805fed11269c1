import cliProgress from 'cli-progress';
import type { CommandContext } from './context.ts';
import { printable } from '../util/clean-text.ts';

/** Without a terminal, a download still going says how far it got this often: a sign of life in a log. */
const PROGRESS_LINE_MS = 10_000;

const size = (bytes: number) => (bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MB` : `${Math.round(bytes / 1024)} KB`);

/**
 * How a long command tells the operator where it is. On a terminal (not a CI job's): progress bars for downloads.
 * Without one (a log, a pipe): one line per step on stderr as it happens, and a line every ten
 * seconds for a download still going. With --json or --quiet: nothing (errors still reach stderr
 * through the top-level handler, and failed lists through the command).
 */
export class StepReporter {
  private readonly bars: cliProgress.MultiBar | null;
  private readonly active = new Map<string, cliProgress.SingleBar>();
  private readonly silent: boolean;
  /** Without bars: when each download going on last said how far it got (or started). */
  private readonly lastSaid = new Map<string, number>();

  private readonly ctx: CommandContext;

  constructor(ctx: CommandContext, quiet = false) {
    this.ctx = ctx;
    this.silent = quiet || ctx.json;
    const stream = ctx.io.stderr as NodeJS.WriteStream;
    // A CI runner's log may be a terminal (GitLab's and GitHub's are, to keep colours): bars redrawn
    // in place would fill it with escape codes, so under CI a download says how far it got in lines.
    const ci = ctx.io.env.CI;
    const inCi = ci !== undefined && ci !== '' && ci !== 'false' && ci !== '0';
    this.bars =
      !this.silent && stream.isTTY && !inCi
        ? new cliProgress.MultiBar(
            { stream, format: ' {bar} {percentage}% | {label}', hideCursor: true, clearOnComplete: true, stopOnComplete: false },
            cliProgress.Presets.shades_classic,
          )
        : null;
  }

  /** One line of a step, e.g. "fetch: https://…/sigarette.xml changed" (the pipeline's report). */
  readonly step = (name: string, text: string): void => {
    if (this.silent) return;
    const line = `tariff: ${name}: ${printable(text)}`;
    // While bars are drawn, lines go through them (above the bars); otherwise straight out.
    if (this.bars && this.active.size > 0) this.bars.log(`${line}\n`);
    else this.ctx.io.stderr.write(`${line}\n`);
  };

  /** Progress of a transfer; drawn only on a terminal. */
  readonly progress = (label: string, done: number, total: number | null): void => {
    if (!this.bars) return this.progressLine(label, done, total);
    let bar = this.active.get(label);
    if (!bar) {
      bar = this.bars.create(total ?? Math.max(done, 1), 0, { label });
      this.active.set(label, bar);
    }
    if (total === null) bar.setTotal(Math.max(done, 1));
    bar.update(done, { label });
  };

  private progressLine(label: string, done: number, total: number | null): void {
    if (this.silent) return;
    const now = this.ctx.io.now().getTime();
    const last = this.lastSaid.get(label);
    if (last === undefined) this.lastSaid.set(label, now);
    if (last === undefined || now - last < PROGRESS_LINE_MS) return;
    this.lastSaid.set(label, now);
    this.ctx.io.stderr.write(`tariff: fetch: ${label}: ${size(done)}${total === null ? '' : ` of ${size(total)}`} so far\n`);
  }

  readonly finish = (label: string): void => {
    this.lastSaid.delete(label);
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
