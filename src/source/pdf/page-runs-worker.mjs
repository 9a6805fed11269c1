// Reads text runs from PDF pages for read-pdf-runs.ts, with PDFium (Chromium's PDF engine,
// compiled to WebAssembly by @embedpdf/pdfium). Plain JavaScript on purpose: the reader starts
// without any loader, so it is ready while the CLI itself is still loading.
//
// It runs as a child process (a thread can be neither killed outright nor made to give its memory
// back): a document past its deadline is stopped with SIGKILL and every byte it took returns to
// the system. It ends by itself when the process that started it goes.
//
// PDFium reads the content streams and fonts in C++; this file only walks the characters of each
// page. On the real 47-page list that takes a quarter of the time pdfjs-dist's text layer took,
// which spent most of it building and copying JavaScript objects per glyph.
import { closeSync, fstatSync, openSync, readFileSync, readSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { init } from '@embedpdf/pdfium';

// Never outlive the command. Its channel closing ends an idle reader at once ('disconnect'), but
// a reader inside one long PDFium call runs no JavaScript until it returns: a thread of its own
// checks that the command is still its parent and, once it is not (killed, even with SIGKILL),
// ends the process whatever the main thread is doing. Every end is SIGKILL of itself: Node's exit
// sequence (process.exit) stops the watchdog thread first and was seen never to finish, leaving a
// reader with no channel and no watchdog alive for good; a reader has nothing to flush.
const parent = process.ppid;
process.on('disconnect', () => process.kill(process.pid, 'SIGKILL'));
new Worker(
  `const { workerData } = require('node:worker_threads');
   setInterval(() => { if (process.ppid !== workerData) process.kill(process.pid, 'SIGKILL'); }, 200);`,
  { eval: true, workerData: parent },
).unref();

const wasmBinary = readFileSync(createRequire(import.meta.url).resolve('@embedpdf/pdfium/pdfium.wasm'));

// PDFium unpacks a stream whole in a WebAssembly heap that grows and never shrinks: a few
// megabytes that unpack to gigabytes (a deflate bomb) would take the process's memory with them.
// The heap may grow to the job's limit and no further; PDFium then aborts, and the thread, whose
// module an abort leaves unusable, is replaced (read-pdf-runs.ts).
let heapLimit = Infinity;
let heapRefused = false;
/** The page being read, to name it when the heap runs out (a page of far too much text can, before any count). */
let pageReading = null;
const ready = init({
  wasmBinary,
  // An abort is reported to the caller with its reason, not printed on the command's stderr.
  printErr: () => {},
  instantiateWasm(imports, receiveInstance) {
    const grow = imports.env.emscripten_resize_heap;
    imports.env.emscripten_resize_heap = (requested) => {
      if (requested >>> 0 > heapLimit) {
        heapRefused = true;
        return 0;
      }
      return grow(requested);
    };
    WebAssembly.instantiate(wasmBinary, imports).then(({ instance, module }) => receiveInstance(instance, module));
    return {};
  },
});
// Jobs that come while PDFium loads wait for it, in order (the listener is there from the start: none is missed).
// One job at a time, in order (a job waits for the page sends of the one before it).
let jobs = ready;
process.on('message', (job) => (jobs = jobs.then(() => readJob(job))));
const { pdfium } = await ready;
const fn = pdfium.wasmExports;
fn.PDFiumExt_Init();

// FPDF_GetLastError's codes; the rest (1, unknown) are "damaged".
const LOAD_FAILURES = { 2: 'missing', 3: 'format', 4: 'password', 5: 'security' };
const round = (value) => Math.round(value * 100) / 100;

// PDFium reads the document through a callback, a block at a time, from the file the command
// wrote once for all its readers: neither this process's JavaScript nor PDFium's heap holds a copy
// of the file (a 60 MB file padded with a stream no page uses costs a reader nothing).
/** The open file of the job being read: the callback's source. */
let file = null;
const readBlock = pdfium.addFunction((_param, position, buffer, length) => {
  if (!file || position + length > file.size) return 0;
  let done = 0;
  while (done < length) {
    const read = readSync(file.fd, pdfium.HEAPU8, buffer + done, length - done, position + done);
    if (read <= 0) return 0;
    done += read;
  }
  return 1;
}, 'iiiii');

/**
 * Reads pages offset+1, offset+1+stride, … of the document, sending each page as soon as it is
 * read (the process holds one page at a time, whatever the document's length).
 * @param {{ id: number, path: string, offset: number, stride: number }} job
 */
async function readPages(job) {
  const fd = openSync(job.path, 'r');
  // FPDF_FILEACCESS: the file's length, the callback, its parameter (wasm32: three 4-byte fields).
  const access = fn.malloc(12);
  const scratch = fn.malloc(48);
  try {
    file = { fd, size: fstatSync(fd).size };
    pdfium.HEAPU32[access >> 2] = file.size;
    pdfium.HEAPU32[(access >> 2) + 1] = readBlock;
    pdfium.HEAPU32[(access >> 2) + 2] = 0;
    const doc = fn.FPDF_LoadCustomDocument(access, 0);
    if (!doc) throw new PdfReadError(LOAD_FAILURES[fn.FPDF_GetLastError()] ?? 'damaged');
    try {
      // The page count is the page tree's, which PDFium walks with every shared kid counted: a
      // kilobyte can name one page a million times. Refused before any page is read.
      const count = fn.FPDF_GetPageCount(doc);
      if (count <= 0) throw new PdfReadError('damaged', undefined, 'its page tree leads to no page');
      if (count > job.limits.pagesPerDocument)
        throw new PdfReadError('too_large', undefined, `its page tree counts ${count} pages, more than ${job.limits.pagesPerDocument}`);
      reply({ id: job.id, stage: 'opened', pages: count });
      // This share's part of the document's characters (each share reads every stride-th page).
      const budget = {
        chars: Math.ceil(job.limits.charsPerDocument / job.stride),
        objects: Math.ceil(job.limits.objectsPerDocument / job.stride),
      };
      for (let index = job.offset; index < count; index += job.stride) {
        const page = readPage(doc, index, scratch, job.tolerances, job.limits, budget);
        // Sent before the next page is read, and only once the channel has taken it: a command
        // slower than its reader holds the reader back instead of piling pages up in its memory.
        await new Promise((resolve) => (process.connected ? process.send({ id: job.id, page }, resolve) : resolve()));
      }
      return count;
    } finally {
      fn.FPDF_CloseDocument(doc);
    }
  } finally {
    file = null;
    closeSync(fd);
    fn.free(scratch);
    fn.free(access);
  }
}

/**
 * The runs of one page. A run is what one text-showing operation drew, as a spreadsheet writes one
 * cell, cut again where the pen jumps (forwards, backwards or to another baseline beyond the
 * tolerances of reader-tolerances.ts, which the job carries), so that two cells written by one
 * operation still come apart. Spaces at either end of a run are dropped (its box then fits the
 * visible text), and a gap inside a run wider than a word gap reads as a space, as on paper.
 */
function readPage(doc, index, scratch, { runBreakForward, runBreakBack, wordGap }, limits, budget) {
  pageReading = index + 1;
  const page = fn.FPDF_LoadPage(doc, index);
  if (!page) throw new PdfReadError('damaged', index + 1);
  // Counted before PDFium lays the text out: that costs time and memory in proportion to the objects.
  const objects = fn.FPDFPage_CountObjects(page);
  if (objects > limits.objectsPerPage) {
    fn.FPDF_ClosePage(page);
    throw new PdfReadError('too_large', index + 1, `${objects} objects (text runs, lines, images), more than ${limits.objectsPerPage}`);
  }
  budget.objects -= objects;
  if (budget.objects < 0) {
    fn.FPDF_ClosePage(page);
    throw new PdfReadError('too_large', undefined, `its pages hold more than ${limits.objectsPerDocument} objects in all`);
  }
  const textPage = fn.FPDFText_LoadPage(page);
  const texts = [];
  const boxes = [];
  let run = null;
  let owner = 0;
  let space = false;
  const end = () => {
    if (run) {
      if (texts.length >= limits.runsPerPage) throw new PdfReadError('too_large', index + 1, `more than ${limits.runsPerPage} text runs`);
      texts.push(run.text);
      boxes.push(round(run.x), round(run.y), round(run.right - run.x), round(run.size));
    }
    run = null;
    space = false;
  };
  try {
    if (!textPage) throw new PdfReadError('damaged', index + 1);
    const chars = fn.FPDFText_CountChars(textPage);
    if (chars > limits.charsPerPage)
      throw new PdfReadError('too_large', index + 1, `${chars} characters, more than ${limits.charsPerPage}`);
    budget.chars -= chars;
    if (budget.chars < 0)
      throw new PdfReadError('too_large', undefined, `its pages hold more than ${limits.charsPerDocument} characters in all`);
    for (let i = 0; i < chars; i++) {
      // Generated characters are PDFium's guesses at spaces and line ends, not the document's.
      if (fn.FPDFText_IsGenerated(textPage, i) === 1) continue;
      const object = fn.FPDFText_GetTextObject(textPage, i);
      if (object !== owner) {
        end();
        owner = object;
      }
      const code = fn.FPDFText_GetUnicode(textPage, i);
      if (isSpace(code)) {
        space = run !== null;
        continue;
      }
      fn.FPDFText_GetCharOrigin(textPage, i, scratch, scratch + 8);
      fn.FPDFText_GetLooseCharBox(textPage, i, scratch + 16);
      const x = pdfium.HEAPF64[scratch >> 3];
      const y = pdfium.HEAPF64[(scratch + 8) >> 3];
      const right = pdfium.HEAPF32[(scratch + 24) >> 2];
      if (
        run &&
        (Math.abs(y - run.y) > runBreakBack * run.size ||
          x < run.right - runBreakBack * run.size ||
          x - run.right > runBreakForward * run.size)
      )
        end();
      if (!run) {
        run = { text: '', x, y, right, size: fn.FPDFText_GetFontSize(textPage, i) };
      } else if (space || x - run.right > wordGap * run.size) {
        run.text += ' ';
      }
      // A code with no Unicode mapping reads as U+FFFD, so a value holding it fails its check.
      run.text += code === 0 ? '\uFFFD' : String.fromCodePoint(code);
      run.right = right;
      space = false;
    }
    end();
  } finally {
    if (textPage) fn.FPDFText_ClosePage(textPage);
    fn.FPDF_ClosePage(page);
  }
  // One string a page (a run never holds a line end) and one typed array: far cheaper to send than an object a run.
  return { number: index + 1, texts: texts.join('\n'), boxes: Float64Array.from(boxes) };
}

/** White space as PDF text writes it: spaces (plain and no-break), tabs, line ends. */
function isSpace(code) {
  return (
    code === 0x20 ||
    code === 0xa0 ||
    code === 0x09 ||
    code === 0x0a ||
    code === 0x0d ||
    code === 0x3000 ||
    (code >= 0x2000 && code <= 0x200b)
  );
}

class PdfReadError extends Error {
  /**
   * @param {'missing' | 'format' | 'password' | 'security' | 'damaged' | 'too_large'} reason
   * @param {number} [page]
   * @param {string} [detail]
   */
  constructor(reason, page, detail) {
    super(detail ?? (page ? `page ${page} does not read` : reason));
    this.reason = reason;
    this.page = page;
  }
}

function reply(message) {
  if (process.connected) process.send(message);
}

/** One job: said begun (its deadlines run from now), read page by page, ended. */
async function readJob(job) {
  reply({ id: job.id, stage: 'started' });
  heapLimit = job.limits.heapBytes;
  heapRefused = false;
  pageReading = null;
  try {
    reply({ id: job.id, done: await readPages(job) });
  } catch (error) {
    // Any error from inside WebAssembly (an abort, a trap) leaves the module unusable: the thread is done.
    const fatal = error instanceof WebAssembly.RuntimeError;
    if (heapRefused) {
      // Whatever PDFium made of the refusal, a thread that ran out of heap is not trusted with the next document.
      const message = `more than ${job.limits.heapBytes / 1048576} MB of memory to read`;
      reply({ id: job.id, fatal: true, error: { reason: 'too_large_memory', page: pageReading, message } });
      return;
    }
    const reason = error instanceof PdfReadError ? error.reason : error?.code ? 'missing' : 'damaged';
    reply({ id: job.id, fatal, error: { reason, page: error?.page ?? null, message: String(error?.message ?? error) } });
  }
}
