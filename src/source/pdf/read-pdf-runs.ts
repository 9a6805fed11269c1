import { availableParallelism } from 'node:os';
import { errors, TariffError } from '../../errors.ts';
import { DocumentDeadline } from './document-deadline.ts';
import { withDocumentFile } from './document-file.ts';
import { ReadFailed, ReaderPool, type PackedPage, type ReaderLimits, type ReadFailure } from './reader-pool.ts';
import { READER_LIMITS, TOLERANCES } from './reader-tolerances.ts';
import type { PdfPage } from './text-runs.ts';

export interface ReadPdfOptions {
  /** Readers to share the pages between (default and most: one per core, at most READER_LIMITS.readers). */
  threads?: number;
  /** Tighter limits than READER_LIMITS (tests). */
  limits?: Partial<ReaderLimits>;
  /** The document's deadline, when the caller's own steps share it (read-pdf-document.ts). */
  deadline?: DocumentDeadline;
  /** Run on the document's private copy before any reader reads it (its structure check); what it throws is the reading's error. */
  beforeReading?: (path: string) => Promise<void>;
  /**
   * Run at once after the readers are given the document, before any of their pages is taken (a
   * check done while they read): what it throws is the reading's error, whatever they meet.
   */
  whileReading?: () => void;
}

const maxThreads = () => Math.min(availableParallelism(), READER_LIMITS.readers);

/** A list takes about 32 KB a page; below a few pages a second reader costs more than it saves. */
const BYTES_PER_THREAD_MIN = 256 * 1024;

const pool = new ReaderPool(maxThreads);

/**
 * Reads every page's text runs with their positions, with PDFium, and hands each page to `onPage`
 * in page order as soon as it and the pages before it are read: the command holds the pages not
 * yet handed on, in the compact form the readers send, never the whole document's runs. A long
 * list is shared between readers (reader k reads pages k+1, k+1+n, …: none needs the page count
 * before it starts). An encrypted, damaged or oversized file, or one past a limit of its readers, is a
 * `source_pdf_unreadable` error naming it and what was too much; so is anything `onPage` throws.
 *
 * @example await streamPdfPages(readFileSync('sigari.pdf'), 'sigari.pdf', (page) => walker.add(page))
 */
export async function streamPdfPages(
  bytes: Uint8Array,
  name: string,
  onPage: (page: PdfPage) => void,
  options: ReadPdfOptions = {},
): Promise<number> {
  const limits: ReaderLimits = { ...READER_LIMITS, ...options.limits };
  const deadline = options.deadline ?? new DocumentDeadline(name, limits.deadlineMs);
  const threads = Math.max(1, Math.min(options.threads ?? maxThreads(), maxThreads()));
  const shares = Math.max(1, Math.min(threads, Math.floor(bytes.length / BYTES_PER_THREAD_MIN)));
  return withDocumentFile(bytes, async (path) => {
    await options.beforeReading?.(path);
    const inOrder = new PageOrder(onPage, limits.runsPerDocument, name);
    let timer: NodeJS.Timeout | undefined;
    return new Promise<number>((resolve, reject) => {
      let failed = false;
      const fail = (error: unknown) => {
        if (failed) return;
        failed = true;
        clearTimeout(timer);
        for (const share of running) share.cancel();
        reject(error instanceof TariffError ? error : errors.pdfUnreadable(name, describe(error)));
      };
      const running = Array.from({ length: shares }, (_, offset) =>
        pool.run({
          path,
          offset,
          stride: shares,
          limits,
          tolerances: TOLERANCES,
          onStarted: () => {
            if (timer) return;
            deadline.start();
            timer = setTimeout(() => fail(deadline.exceeded('reading its pages')), deadline.remainingMs());
            timer.unref();
          },
          onPage: (page) => {
            if (failed) return;
            try {
              inOrder.add(page);
              deadline.check('reading its pages');
            } catch (error) {
              fail(error);
            }
          },
        }),
      );
      try {
        options.whileReading?.();
      } catch (error) {
        fail(error);
      }
      Promise.all(running.map((share) => share.done)).then(() => {
        if (failed) return;
        clearTimeout(timer);
        resolve(inOrder.handed);
      }, fail);
    });
  });
}

/** Every page's runs at once: for tests and small tools (a document's reading streams them: streamPdfPages). */
export async function readPdfRuns(bytes: Uint8Array, name: string, options: ReadPdfOptions = {}): Promise<PdfPage[]> {
  const pages: PdfPage[] = [];
  await streamPdfPages(bytes, name, (page) => pages.push(page), options);
  return pages;
}

/**
 * Pages as the readers send them, in any order, handed on in page order: those that came early
 * wait, packed. The runs of the whole document are counted as they come (each reader counts only
 * its share's characters and objects): past `runsPerDocument` the document is refused.
 */
class PageOrder {
  private readonly waiting = new Map<number, PackedPage>();
  private runs = 0;
  handed = 0;
  private readonly onPage: (page: PdfPage) => void;
  private readonly runsPerDocument: number;
  private readonly name: string;

  constructor(onPage: (page: PdfPage) => void, runsPerDocument: number, name: string) {
    this.onPage = onPage;
    this.runsPerDocument = runsPerDocument;
    this.name = name;
  }

  add(page: PackedPage): void {
    this.runs += page.boxes.length / 4;
    if (this.runs > this.runsPerDocument)
      throw errors.pdfUnreadable(this.name, `its pages hold more than ${this.runsPerDocument} text runs in all: no price list does`);
    this.waiting.set(page.number, page);
    for (let next = this.waiting.get(this.handed + 1); next; next = this.waiting.get(this.handed + 1)) {
      this.waiting.delete(next.number);
      this.handed++;
      this.onPage(unpack(next));
    }
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

function describe(error: unknown): string {
  const failure: ReadFailure | undefined = error instanceof ReadFailed ? error.failure : undefined;
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

/**
 * Starts the readers ahead of the first PDF, so that loading PDFium in them overlaps with the
 * command's own start-up. Harmless when no PDF comes: the readers never keep the process alive.
 */
export function prewarmPdfReader(): void {
  pool.prewarm();
}

/** How many readers the command has started and not told to end. */
export function pdfReadersRunning(): number {
  return pool.running;
}

/** Ends the readers now unless one is at work: the documents in hand are all read. */
export function releasePdfReaders(): void {
  pool.stopIdle();
}

/** Ends every reader now (a command stopping on a signal, before its orderly exit). */
export function stopPdfReaders(): void {
  pool.stopAll();
}

/** Ends every reader and waits until each has ended: before a process replaces itself (`tariff start` once built). */
export function endPdfReaders(): Promise<void> {
  return pool.endAll();
}
