// Reads text runs from PDF pages for read-pdf-runs.ts. Plain JavaScript on purpose: the CLI runs
// TypeScript through tsx, whose loader makes importing pdfjs-dist (2 MB of modules) take seconds;
// a worker without that loader imports it in under 0.1 s.
//
// pdfjs's legacy build (the one for Node.js) replaces Array.prototype.push with a core-js version
// that fixes lengths above 2^32 and is several times slower: a quarter of the CPU time on the real
// 47-page list. This thread runs nothing but pdfjs and no array here nears 2^32 items, so the
// native push goes back. (Skipping pdfjs's structuredClone of its internal messages would save as
// much again, but pdfjs does reuse what it sends: page 1 of the real list lost its header.)
import { parentPort } from 'node:worker_threads';

const nativePush = Array.prototype.push;
const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
// pdfjs's own "worker" half, loaded now (it brings the same polyfill) and handed to pdfjs, which
// would otherwise load it on the first document.
globalThis.pdfjsWorker = await import('pdfjs-dist/legacy/build/pdf.worker.mjs');
Array.prototype.push = nativePush;
const round = (value) => Math.round(value * 100) / 100;

/** Reads pages offset+1, offset+1+stride, … of the document. @param {{ id: number, bytes: Uint8Array, offset: number, stride: number }} job */
async function readPages(job) {
  const doc = await pdfjs.getDocument({
    data: job.bytes,
    isEvalSupported: false,
    disableFontFace: true,
    useSystemFonts: false,
    verbosity: 0,
    stopAtErrors: true,
  }).promise;
  try {
    const pages = [];
    for (let number = job.offset + 1; number <= doc.numPages; number += job.stride) {
      const page = await doc.getPage(number);
      const content = await page.getTextContent({ disableNormalization: true });
      // Sent packed (texts, and x, y, width, height four numbers a run): cheaper to post than objects.
      const texts = [];
      const boxes = [];
      for (const item of content.items) {
        if (typeof item.str !== 'string' || item.str.trim() === '' || !item.transform) continue;
        texts.push(item.str);
        boxes.push(round(item.transform[4]), round(item.transform[5]), round(item.width ?? 0), round(item.height ?? 0));
      }
      page.cleanup();
      pages.push({ number, texts, boxes: Float64Array.from(boxes) });
    }
    return { pages };
  } finally {
    await doc.destroy();
  }
}

parentPort.on('message', (job) => {
  readPages(job).then(
    (result) =>
      parentPort.postMessage(
        { id: job.id, ...result },
        result.pages.map((page) => page.boxes.buffer),
      ),
    (error) => parentPort.postMessage({ id: job.id, error: { name: error?.name ?? 'Error', message: String(error?.message ?? error) } }),
  );
});
