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

interface WorkerReply {
  id: number;
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
      return `page ${failure.page} holds ${failure.message}: no price list does`;
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

/**
 * Reader processes kept for the life of the command (a release reads several PDFs), unreferenced
 * while idle so they never keep it alive, and ending by themselves when it ends. Each job goes to
 * the least busy reader. A process, not a thread: a document past its deadline is stopped with
 * SIGKILL at once, whatever PDFium is doing, and all the memory it took goes back to the system.
 */
class WorkerPool {
  private readonly workers: { worker: ChildProcess; busy: number }[] = [];
  private readonly waiting = new Map<
    number,
    { resolve: (reply: WorkerReply) => void; reject: (error: Error) => void; owner: ChildProcess }
  >();
  private nextId = 1;

  run(bytes: Uint8Array, offset: number, stride: number, limits: ReaderLimits): Promise<{ pages: PdfPage[] }> {
    const slot = this.pick();
    const id = this.nextId++;
    slot.busy++;
    hold(slot.worker, true);
    return new Promise<WorkerReply>((resolve, reject) => {
      slot.worker.send({ id, bytes, offset, stride, tolerances: TOLERANCES, limits });
      // A document that takes longer than any list does stops its reader: the job fails, a new reader takes the next.
      const deadline = setTimeout(() => {
        this.waiting.delete(id);
        const message = `reading it took longer than ${limits.deadlineMs / 1000} s, more than any price list needs`;
        reject(Object.assign(new Error(message), { failure: { reason: 'too_slow', page: null, message } }));
        this.retire(slot);
      }, limits.deadlineMs);
      deadline.unref();
      this.waiting.set(id, { resolve: settle(deadline, resolve), reject: settle(deadline, reject), owner: slot.worker });
    })
      .then((reply) => {
        if (reply.error) throw Object.assign(new Error(reply.error.message), { failure: reply.error });
        return { pages: reply.pages!.map(unpack) };
      })
      .finally(() => {
        slot.busy--;
        if (slot.busy === 0) hold(slot.worker, false);
      });
  }

  prewarm(): void {
    while (this.workers.length < maxThreads()) this.spawn();
  }

  /** Stops a reader, out of the pool first: the next job must not go to one that is stopping. */
  private retire(slot: { worker: ChildProcess }) {
    const at = this.workers.findIndex((candidate) => candidate.worker === slot.worker);
    if (at !== -1) this.workers.splice(at, 1);
    slot.worker.kill('SIGKILL');
  }

  private pick() {
    const idle = this.workers.find((w) => w.busy === 0);
    if (idle) return idle;
    if (this.workers.length < maxThreads()) return this.spawn();
    return this.workers.reduce((a, b) => (b.busy < a.busy ? b : a));
  }

  private spawn() {
    // No inherited flags: the reader is plain JavaScript and needs none of the parent's. Typed
    // arrays cross the channel as they are (advanced serialization), not as JSON.
    const worker = fork(new URL('./page-runs-worker.mjs', import.meta.url), [], {
      execArgv: [],
      serialization: 'advanced',
      stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
    });
    const slot = { worker, busy: 0 };
    this.workers.push(slot);
    worker.on('message', (reply: WorkerReply) => {
      const job = this.waiting.get(reply.id);
      this.waiting.delete(reply.id);
      if (reply.fatal) this.retire(slot);
      job?.resolve(reply);
    });
    // 'error' (it could not start) may come without 'exit': the slot goes once, its jobs fail once.
    const fail = (error: Error) => {
      const at = this.workers.indexOf(slot);
      if (at !== -1) this.workers.splice(at, 1);
      for (const [id, job] of this.waiting) {
        if (job.owner !== worker) continue;
        this.waiting.delete(id);
        job.reject(error);
      }
    };
    worker.on('error', fail);
    worker.on('exit', (code, signal) => fail(new Error(`the PDF reader stopped (${signal ?? `exit ${code}`})`)));
    hold(worker, false);
    return slot;
  }
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

/** A job's callback that also clears its deadline. */
const settle =
  <T>(deadline: NodeJS.Timeout, callback: (value: T) => void) =>
  (value: T) => {
    clearTimeout(deadline);
    callback(value);
  };

const pool = new WorkerPool();

/**
 * Starts the reader threads ahead of the first PDF, so that loading PDFium in them overlaps
 * with the command's own start-up. Harmless when no PDF comes: the threads never keep the process alive.
 */
export function prewarmPdfReader(): void {
  pool.prewarm();
}
