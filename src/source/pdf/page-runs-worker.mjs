// Reads text runs from PDF pages for read-pdf-runs.ts. Plain JavaScript on purpose: the CLI runs
// TypeScript through tsx, whose loader makes importing pdfjs-dist (2 MB of modules) take seconds;
// a worker without that loader imports it in under 0.1 s.
import { parentPort } from 'node:worker_threads';

const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
const round = (value) => Math.round(value * 100) / 100;

/** Reads pages offset+1, offset+1+stride, … of the document. @param {{ id: number, bytes: Uint8Array, offset: number, stride: number }} job */
async function readPages(job) {
  const doc = await pdfjs.getDocument({
    data: job.bytes, isEvalSupported: false, disableFontFace: true, useSystemFonts: false, verbosity: 0, stopAtErrors: true,
  }).promise;
  try {
    const pages = [];
    for (let number = job.offset + 1; number <= doc.numPages; number += job.stride) {
      const page = await doc.getPage(number);
      const content = await page.getTextContent({ disableNormalization: true });
      const runs = [];
      for (const item of content.items) {
        if (typeof item.str !== 'string' || item.str.trim() === '' || !item.transform) continue;
        runs.push({ text: item.str, x: round(item.transform[4]), y: round(item.transform[5]), width: round(item.width ?? 0), height: round(item.height ?? 0) });
      }
      page.cleanup();
      pages.push({ number, runs });
    }
    return { pageCount: doc.numPages, pages };
  } finally {
    await doc.destroy();
  }
}

parentPort.on('message', (job) => {
  readPages(job).then(
    (result) => parentPort.postMessage({ id: job.id, ...result }),
    (error) => parentPort.postMessage({ id: job.id, error: { name: error?.name ?? 'Error', message: String(error?.message ?? error) } }),
  );
});
