import { fork, type ChildProcess } from 'node:child_process';
import { processCpuMs } from '../../util/process-cpu.ts';
import type { TOLERANCES } from './reader-tolerances.ts';
import { READER_LIMITS } from './reader-tolerances.ts';

export type ReaderLimits = { [K in keyof typeof READER_LIMITS]: number };

/** A page as a reader sends it: the runs' texts, one to a line, and x, y, width, height for each in `boxes`. */
export interface PackedPage {
  number: number;
  texts: string;
  boxes: Float64Array;
}

/** Why a document did not read, as the reader tells it (FPDF_GetLastError, a page that failed, a limit). */
export interface ReadFailure {
  reason: 'missing' | 'format' | 'password' | 'security' | 'damaged' | 'too_large' | 'too_large_memory' | 'too_slow';
  page: number | null;
  message: string;
}

/** What a reader says of a job: that it began it, that it opened the document, a page, its end. */
interface ReaderReply {
  id: number;
  stage?: 'started' | 'opened';
  /** With `opened`: the document's page count. */
  pages?: number;
  page?: PackedPage;
  /** The job is done: the document's page count. */
  done?: number;
  error?: ReadFailure;
  /** The reader's PDFium aborted: it reads nothing more and is replaced. */
  fatal?: boolean;
}

/** One share of a document: the file, the pages it reads (offset+1, offset+1+stride, …) and what to do with each. */
export interface ShareJob {
  path: string;
  offset: number;
  stride: number;
  limits: ReaderLimits;
  tolerances: typeof TOLERANCES;
  /** The reader began it: the document's deadline runs from the first such call. */
  onStarted(): void;
  onPage(page: PackedPage): void;
}

/** A share given to the pool: what is sent, and who waits for the answer. */
interface Job {
  id: number;
  share: ShareJob;
  resolve: () => void;
  reject: (error: Error) => void;
  slot: Slot | null;
  /** Whether its reader began it: a job that never began is not to blame for its reader's end. */
  started: boolean;
  /** Readers it was given to: one that keeps losing its reader to other documents gives up at last. */
  tries: number;
  /** Its reader's processor time when it began the job (null: the system does not say). */
  cpuAtStart: number | null;
  /** Whether its reader has opened the document (until then, the shorter limit to open it counts). */
  opened: boolean;
}

interface Slot {
  worker: ChildProcess;
  busy: number;
}

/** How long readers with nothing to read are kept for the next document before they end. */
const READERS_IDLE_MS = 2_000;

/** How often a job may lose a reader it had not begun on (another document's fault) before it fails. */
const MAX_TRIES = 4;

/**
 * How often the processor time of the readers at work is read: a limit passes by at most this much
 * of the reader's time (the count itself costs a read of /proc per busy reader).
 */
const CPU_CHECK_MS = 100;

/**
 * A reader's JavaScript heap, in MB: it holds one page at a time (a hostile one: a few MB; a page of
 * 60,000 runs reads within it). V8 grows a heap towards its cap before collecting: at 64 MB each
 * reader of a 475-page list held 13 MB more, which the command tree's bound has no room for.
 */
const READER_JS_HEAP_MB = 32;

/** A share's failure, carrying the reader's reason. */
export class ReadFailed extends Error {
  readonly failure: ReadFailure;

  constructor(failure: ReadFailure) {
    super(failure.message);
    this.failure = failure;
  }
}

/**
 * Reader processes kept for the life of the command (a release reads several PDFs), unreferenced
 * while idle so they never keep it alive, and ending with it: killed on every exit of the command,
 * and ending by themselves when it is gone (page-runs-worker.mjs). Each job goes to the least busy
 * reader. A process, not a thread: a document past a limit is stopped with SIGKILL at once,
 * whatever PDFium is doing, and all the memory it took goes back to the system. The other
 * documents of a reader so stopped are read again by a fresh one.
 *
 * READER_LIMITS.readers readers at most, whatever the cores: each holds PDFium's code and heap
 * (about 70 MB idle), and the command with its readers stays within the memory bound of
 * docs/source-format.md.
 */
export class ReaderPool {
  private readonly workers: Slot[] = [];
  /** Every reader started and not yet ended (a retired one may still be on its way out). */
  private readonly living = new Set<ChildProcess>();
  private readonly jobs = new Map<number, Job>();
  private nextId = 1;
  private exitHook = false;
  private idle: NodeJS.Timeout | undefined;
  /** Reads the busy readers' processor time while any job has begun. */
  private cpuCheck: NodeJS.Timeout | undefined;
  /** How many readers at most (the cores, within READER_LIMITS.readers). */
  private readonly size: () => number;

  constructor(size: () => number) {
    this.size = size;
  }

  /** Reads one share: resolves once its last page was handed to `onPage`; `cancel` ends it early. */
  run(share: ShareJob): { done: Promise<void>; cancel: () => void } {
    const id = this.nextId++;
    const done = new Promise<void>((resolve, reject) => {
      const job: Job = { id, share, resolve, reject, slot: null, started: false, tries: 0, cpuAtStart: null, opened: false };
      this.jobs.set(id, job);
      this.dispatch(job);
    });
    return { done, cancel: () => this.cancel(id) };
  }

  /** How many readers are started and not told to end. */
  get running(): number {
    return this.workers.length;
  }

  prewarm(): void {
    while (this.workers.length < this.size()) this.spawn();
    this.idleSoon();
  }

  /**
   * Ends the readers now if none is at work: the caller has read all it meant to, and what it does
   * next (a build's files) should not count idle readers' memory against the bound.
   */
  stopIdle(): void {
    if (this.jobs.size > 0) return;
    clearTimeout(this.idle);
    this.stopAll();
  }

  /** Ends every reader now: the command is exiting (its readers never outlive it). */
  stopAll(): void {
    for (const slot of this.workers.splice(0)) slot.worker.kill('SIGKILL');
  }

  /** Ends every reader, resolving once each has ended and been reaped (none is left behind as a zombie). */
  async endAll(): Promise<void> {
    const living = [...this.living];
    this.stopAll();
    await Promise.all(
      living.map((worker) => {
        const ended = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
        // Held while it ends: an idle reader does not keep the process alive, and this wait must.
        hold(worker, true);
        worker.kill('SIGKILL');
        return ended;
      }),
    );
  }

  /** Stops a job whose document was refused or whose deadline passed: its reader, busy with it, goes too. */
  private cancel(id: number): void {
    const job = this.jobs.get(id);
    if (!job) return;
    const slot = job.slot;
    this.settle(job);
    if (slot && job.started) this.retire(slot);
  }

  private dispatch(job: Job): void {
    clearTimeout(this.idle);
    job.tries++;
    const slot = this.pick();
    job.slot = slot;
    job.started = false;
    job.opened = false;
    slot.busy++;
    hold(slot.worker, true);
    const { path, offset, stride, limits, tolerances } = job.share;
    slot.worker.send({ id: job.id, path, offset, stride, limits, tolerances });
  }

  /** The job is answered (or failed): its timer stops, its reader is one job lighter. */
  private settle(job: Job): void {
    this.jobs.delete(job.id);
    const slot = job.slot;
    if (slot && --slot.busy === 0) hold(slot.worker, false);
    if (this.jobs.size === 0) this.idleSoon();
  }

  /**
   * Readers live for the reading they serve: idle for READERS_IDLE_MS (the documents of a build
   * come closer together than that), they end, and a command that goes on (`start` serving after
   * its build) holds none. The next document starts them again.
   */
  private idleSoon(): void {
    clearTimeout(this.idle);
    this.idle = setTimeout(() => {
      if (this.jobs.size === 0) this.stopAll();
    }, READERS_IDLE_MS);
    this.idle.unref();
  }

  /** Its reader began the job: from now on, and not before, its processor time counts against the job's limits. */
  private begun(job: Job): void {
    job.started = true;
    job.cpuAtStart = processCpuMs(job.slot!.worker.pid ?? -1);
    job.share.onStarted();
    if (!this.cpuCheck) {
      this.cpuCheck = setInterval(() => this.checkCpu(), CPU_CHECK_MS);
      this.cpuCheck.unref();
    }
  }

  /**
   * Stops each job whose reader has spent more of its own processor time on it than the limits
   * allow: to open the document (`openCpuMs`), then to read its share (`readerCpuMs`). Counted in
   * the reader's processor time, which other processes do not inflate: a busy machine makes a
   * document slower, never refused. Where the system does not say (not Linux), only the document's
   * backstop of the clock bounds it.
   */
  private checkCpu(): void {
    let begun = 0;
    for (const job of [...this.jobs.values()]) {
      if (!job.started || job.cpuAtStart === null || !job.slot) continue;
      begun++;
      const now = processCpuMs(job.slot.worker.pid ?? -1);
      if (now === null) continue;
      const used = now - job.cpuAtStart;
      const { openCpuMs, readerCpuMs } = job.share.limits;
      const message = !job.opened
        ? used > openCpuMs
          ? `opening it (its cross-reference sections and page tree) took more than ${openCpuMs / 1000} s of the reader's processor time; a price list opens in milliseconds`
          : null
        : used > readerCpuMs
          ? `reading its pages took more than ${readerCpuMs / 1000} s of the reader's processor time; a price list takes well under one`
          : null;
      if (message === null) continue;
      const slot = job.slot;
      this.settle(job);
      this.retire(slot);
      job.reject(new ReadFailed({ reason: 'too_slow', page: null, message }));
    }
    if (begun === 0) {
      clearInterval(this.cpuCheck);
      this.cpuCheck = undefined;
    }
  }

  /** Stops a reader, out of the pool first: the next job must not go to one that is stopping. */
  private retire(slot: Slot) {
    const at = this.workers.indexOf(slot);
    if (at !== -1) this.workers.splice(at, 1);
    slot.worker.kill('SIGKILL');
  }

  private pick(): Slot {
    const idle = this.workers.find((w) => w.busy === 0);
    if (idle) return idle;
    if (this.workers.length < this.size()) return this.spawn();
    return this.workers.reduce((a, b) => (b.busy < a.busy ? b : a));
  }

  private reply(slot: Slot, reply: ReaderReply): void {
    const job = this.jobs.get(reply.id);
    if (!job || job.slot !== slot) return;
    if (reply.stage === 'started') return this.begun(job);
    if (reply.stage === 'opened') {
      job.opened = true;
      return;
    }
    if (reply.page) return job.share.onPage(reply.page);
    if (reply.fatal) this.retire(slot);
    this.settle(job);
    if (reply.error) job.reject(new ReadFailed(reply.error));
    else job.resolve();
  }

  private spawn(): Slot {
    if (!this.exitHook) {
      // Every way the command exits (its end, process.exit after a signal's orderly stop) ends its readers.
      process.once('exit', () => this.stopAll());
      this.exitHook = true;
    }
    // No inherited flags: the reader is plain JavaScript and needs none of the parent's. Its
    // JavaScript heap is capped (PDFium's own heap is capped by the job): past the cap, the reader
    // ends and its document fails, whatever it holds. Typed arrays cross the channel as they are
    // (advanced serialization), not as JSON.
    const worker = fork(new URL('./page-runs-worker.mjs', import.meta.url), [], {
      execArgv: [`--max-old-space-size=${READER_JS_HEAP_MB}`],
      serialization: 'advanced',
      stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
    });
    const slot: Slot = { worker, busy: 0 };
    this.workers.push(slot);
    this.living.add(worker);
    worker.once('exit', () => this.living.delete(worker));
    worker.on('message', (reply: ReaderReply) => this.reply(slot, reply));
    // 'error' (it could not start) may come without 'exit': the slot goes once, its jobs fail once.
    const ended = (error: Error) => {
      const at = this.workers.indexOf(slot);
      if (at !== -1) this.workers.splice(at, 1);
      for (const job of [...this.jobs.values()]) {
        if (job.slot !== slot) continue;
        // A job its reader had not begun is another document's victim: a fresh reader takes it.
        if (!job.started && job.tries < MAX_TRIES) {
          slot.busy--;
          this.dispatch(job);
        } else {
          this.settle(job);
          job.reject(error);
        }
      }
    };
    worker.on('error', ended);
    worker.on('exit', (code, signal) => ended(new Error(readerEnded(code, signal))));
    hold(worker, false);
    return slot;
  }
}

/** Why a reader ended on its own: out of memory (V8 aborts), or anything else. */
function readerEnded(code: number | null, signal: NodeJS.Signals | null): string {
  if (signal === 'SIGABRT' || code === 134) return `the PDF reader ran out of its ${READER_JS_HEAP_MB} MB of memory`;
  return `the PDF reader stopped (${signal ?? `exit ${code}`})`;
}

/** Whether a reader keeps the command alive: while it works, yes; idle, neither it nor its channel. */
function hold(worker: ChildProcess, busy: boolean): void {
  const channel = worker.channel as { ref(): void; unref(): void } | undefined;
  if (busy) {
    worker.ref();
    channel?.ref();
  } else {
    worker.unref();
    channel?.unref();
  }
}
