// One fresh process reading the authority's real cigar list: the first read (cold: worker threads
// start, PDFium loads) and then warm reads, each the whole PDF reader (text runs and table).
// Prints one JSON line; bench/build.bench.ts runs it several times beside pdftotext.
import { readFileSync } from 'node:fs';
import { parsePriceList } from '../src/source/pdf/parse-price-list.ts';
import { readPdfRuns } from '../src/source/pdf/read-pdf-runs.ts';

const [path, warmRuns = '3'] = process.argv.slice(2) as [string, string?];
const bytes = readFileSync(path);
const readOnce = async () => {
  const start = performance.now();
  const list = parsePriceList(await readPdfRuns(bytes, path), path);
  return { ms: performance.now() - start, products: list.products.length };
};
const cold = await readOnce();
const warm: number[] = [];
for (let i = 0; i < Number(warmRuns); i++) warm.push((await readOnce()).ms);
console.log(JSON.stringify({ coldMs: cold.ms, warmMs: warm, products: cold.products, peakRssMb: process.resourceUsage().maxRSS / 1024 }));
