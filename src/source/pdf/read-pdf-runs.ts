import { availableParallelism } from 'node:os';
import { fork, type ChildProcess } from 'node:child_process';
import { errors } from '../../errors.ts';
import { READER_LIMITS, TOLERANCES } from './reader-tolerances.ts';
import type { PdfPage } from './text-runs.ts';

export interface ReadPdfOptions {
  /** Threads to share the pages between (default and most: one per core, at most 4). */
  threads?: number;
  /** Tighter limits than READER_LIMITS (tests). */
  limits?: Partial<ReaderLimits>;
}

type ReaderLimits = { [K in keyof typeof READER_LIMITS]: number };

/** One reader per core, at most 4: beyond that, memory grows faster than the speed. */
const maxThreads = () => Math.min(availableParallelism(), 4);

/** A list takes about 32 KB a page; below a few pages a second thread costs more than it saves. */
const BYTES_PER_THREAD_MIN = 256 * 1024;

/** A page as the reader sends it: the runs' texts, one to a line, and x, y, width, height for each in `boxes`. */
interface PackedPage {
  number: number;
  texts: string;
  boxes: Float64Array;
}

/** Why a document did not read, as the worker tells it (FPDF_GetLastError, or a page that failed). */
interface ReadFailure {
  reason: 'missing' | 'format' | 'password' | 'security' | 'damaged' | 'too_large' | 'too_large_memory' | 'too_slow';
  page: number | null;
  message: string;
}

/** What a reader says of a job: that it began it, that it opened the document, or the job's result. */
interface WorkerReply {
  id: number;
  stage?: 'started' | 'opened';
  pages?: PackedPage[];
  error?: ReadFailure;
  /** The thread's PDFium aborted: it reads nothing more and is replaced. */
  fatal?: boolean;
}

/**
 * Reads every page's text runs with their positions, with PDFium. The pages are independent,
 * so a long list is shared between worker threads, one per core. An encrypted or damaged file is
 * a `source_pdf_unreadable` error naming it.
 *
 * @example const pages = await readPdfRuns(readFileSync('sigari.pdf'), 'sigari.pdf')
 */
export async function readPdfRuns(bytes: Uint8Array, name: string, options: ReadPdfOptions = {}): Promise<PdfPage[]> {
  const threads = Math.max(1, Math.min(options.threads ?? maxThreads(), maxThreads()));
  const shares = Math.max(1, Math.min(threads, Math.floor(bytes.length / BYTES_PER_THREAD_MIN)));
  try {
    // Share k reads pages k+1, k+1+shares, …: no thread needs the page count before it starts.
    const parts = await Promise.all(
      Array.from({ length: shares }, (_, offset) => pool.run(bytes, offset, shares, { ...READER_LIMITS, ...options.limits })),
    );
    return parts.flatMap((part) => part.pages).sort((a, b) => a.number - b.number);
  } catch (error) {
    throw errors.pdfUnreadable(name, describePdfError(error));
  }
}

function unpack({ number, texts, boxes }: PackedPage): PdfPage {
  return {
    number,
    runs: (texts === '' ? [] : texts.split('\n')).map((text, i) => ({
      text,
      x: boxes[4 * i]!,
      y: boxes[4 * i + 1]!,
      width: boxes[4 * i + 2]!,
      height: boxes[4 * i + 3]!,
    })),
  };
}

function describePdfError(error: unknown): string {
  const failure = (error as { failure?: ReadFailure }).failure;
  switch (failure?.reason) {
    case 'password':
      return 'the PDF is encrypted with a password';
    case 'security':
      return 'the PDF is encrypted with a scheme the reader does not support';
    case 'format':
      return 'not a valid PDF (not in PDF format, or damaged beyond repair)';
    case 'too_large':
      return failure.page ? `page ${failure.page} holds ${failure.message}: no price list does` : `${failure.message}: no price list does`;
    case 'too_large_memory':
      // Loading a page's objects is where the heap runs out on a page of far too much text.
      return failure.page
        ? `page ${failure.page} needs ${failure.message}: no price list does (far more text than a list prints, or a stream that unpacks to far more than it holds)`
        : `it needs ${failure.message}: no price list does (a stream that unpacks to far more than it holds)`;
    case 'too_slow':
      return failure.message;
    default:
      return failure?.page
        ? `the PDF is damaged: page ${failure.page} does not read`
        : `the PDF is damaged or unreadable (${failure?.message ?? (error as Error).message})`;
  }
}

/** A document's share given to the pool: what is sent, and who waits for the answer. */
interface Job {
  id: number;
  message: { id: number; bytes: Uint8Array; offset: number; stride: number; tolerances: typeof TOLERANCES; limits: ReaderLimits };
  resolve: (reply: WorkerReply) => void;
  reject: (error: Error) => void;
  slot: Slot | null;
  /** Whether its reader began it: a job that never began is not to blame for its reader's end. */
  started: boolean;
  /** Readers it was given to: one that keeps losing its reader to other documents gives up at last. */
  tries: number;
  /** Its deadline, and the shorter one to open the document (cleared once it is open). */
  timers: { deadline?: NodeJS.Timeout; open?: NodeJS.Timeout };
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
 * Reader processes kept for the life of the command (a release reads several PDFs), unreferenced
 * while idle so they never keep it alive, and ending with it: killed on every exit of the command,
 * and ending by themselves when it is gone (page-runs-worker.mjs). Each job goes to the least busy
 * reader. A process, not a thread: a document past its deadline is stopped with SIGKILL at once,
 * whatever PDFium is doing, and all the memory it took goes back to the system. A document's
 * deadlines count from when its reader begins it, not from when it was queued; the other documents
 * of a reader so stopped are read again by a fresh one.
 */
class WorkerPool {
  private readonly workers: Slot[] = [];
  /** Every reader started and not yet ended (a retired one may still be on its way out). */
  private readonly living = new Set<ChildProcess>();
  private readonly jobs = new Map<number, Job>();
  private nextId = 1;
  private exitHook = false;
  private idle: NodeJS.Timeout | undefined;

  run(bytes: Uint8Array, offset: number, stride: number, limits: ReaderLimits): Promise<{ pages: PdfPage[] }> {
    const id = this.nextId++;
    return new Promise<WorkerReply>((resolve, reject) => {
      const job: Job = {
        id,
        message: { id, bytes, offset, stride, tolerances: TOLERANCES, limits },
        resolve,
        reject,
        slot: null,
        started: false,
        tries: 0,
        timers: {},
      };
      this.jobs.set(id, job);
      this.dispatch(job);
    }).then((reply) => {
      if (reply.error) throw Object.assign(new Error(reply.error.message), { failure: reply.error });
      return { pages: reply.pages!.map(unpack) };
    });
  }

  prewarm(): void {
    while (this.workers.length < maxThreads()) this.spawn();
    this.idleSoon();
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

  private dispatch(job: Job): void {
    clearTimeout(this.idle);
    job.tries++;
    const slot = this.pick();
    job.slot = slot;
    job.started = false;
    slot.busy++;
    hold(slot.worker, true);
    slot.worker.send(job.message);
  }

  /** The job is answered (or failed): its timers stop, its reader is one job lighter. */
  private settle(job: Job): void {
    this.jobs.delete(job.id);
    clearTimeout(job.timers.deadline);
    clearTimeout(job.timers.open);
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

  private fail(job: Job, reason: ReadFailure['reason'], message: string): void {
    this.settle(job);
    job.reject(Object.assign(new Error(message), { failure: { reason, page: null, message } }));
  }

  /** Its reader began the job: from now on, and not before, its deadlines run. */
  private begun(job: Job): void {
    job.started = true;
    const { limits } = job.message;
    const after = (ms: number, message: string) => {
      const timer = setTimeout(() => {
        const slot = job.slot!;
        this.fail(job, 'too_slow', message);
        this.retire(slot);
      }, ms);
      timer.unref();
      return timer;
    };
    job.timers.deadline = after(
      limits.deadlineMs,
      `reading it took longer than ${limits.deadlineMs / 1000} s, more than any price list needs`,
    );
    job.timers.open = after(
      limits.openMs,
      `opening it and counting its pages took longer than ${limits.openMs / 1000} s (a page tree far larger than any price list's)`,
    );
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
    if (this.workers.length < maxThreads()) return this.spawn();
    return this.workers.reduce((a, b) => (b.busy < a.busy ? b : a));
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
    worker.on('message', (reply: WorkerReply) => {
      const job = this.jobs.get(reply.id);
      if (!job || job.slot !== slot) return;
      if (reply.stage === 'started') return this.begun(job);
      if (reply.stage === 'opened') return clearTimeout(job.timers.open);
      if (reply.fatal) this.retire(slot);
      this.settle(job);
      job.resolve(reply);
    });
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

/** A reader's JavaScript heap, in MB: its pages of text (a real list's are a few MB), and room to spare. */
const READER_JS_HEAP_MB = 256;

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

const pool = new WorkerPool();

/**
 * Starts the reader threads ahead of the first PDF, so that loading PDFium in them overlaps
 * with the command's own start-up. Harmless when no PDF comes: the threads never keep the process alive.
 */
export function prewarmPdfReader(): void {
  pool.prewarm();
}

/** Ends every reader now (a command stopping on a signal, before its orderly exit). */
export function stopPdfReaders(): void {
  pool.stopAll();
}

/** Ends every reader and waits until each has ended: before a process replaces itself (`tariff start` once built). */
export function endPdfReaders(): Promise<void> {
  return pool.endAll();
}
