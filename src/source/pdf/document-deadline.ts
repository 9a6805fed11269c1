import { errors } from '../../errors.ts';

/**
 * The clock's backstop for everything done for a document: its reading by the readers, then the
 * command's own steps (finding its tables, interpreting them, summarising its problems). It runs
 * from when a reader begins the document, not from when it was queued behind others; each step
 * checks it, and no step does more than a page's work between checks. Documents are refused by
 * what they make the reader do (READER_LIMITS); this only passes when the machine gave the reader
 * no time, and says so (`machine_busy`), never that the document is damaged.
 */
export class DocumentDeadline {
  private at = Infinity;
  private readonly source: string;
  readonly ms: number;
  private readonly now: () => number;

  constructor(source: string, ms: number, now: () => number = () => performance.now()) {
    this.source = source;
    this.ms = ms;
    this.now = now;
  }

  /** A reader began the document (the first of its readers, when several share it). */
  start(): void {
    if (this.at === Infinity) this.at = this.now() + this.ms;
  }

  /** Milliseconds left: Infinity before the start. */
  remainingMs(): number {
    return this.at - this.now();
  }

  /** Throws `machine_busy` naming the step when the backstop has passed. */
  check(step: string): void {
    if (this.now() > this.at) throw this.exceeded(step);
  }

  exceeded(step: string) {
    return errors.readerStarved(this.source, step, this.ms / 1000);
  }
}
