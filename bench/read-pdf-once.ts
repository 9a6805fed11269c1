// One fresh process reading the authority's real lists: the first read of them all (cold: worker
// threads start, PDFium loads) and then warm reads, each the whole PDF reader (text runs, tables,
// values) of every list, all at once as tariff build reads its sources (the reader's threads share
// them). Prints one JSON line; bench/build.bench.ts runs it several times beside pdftotext.
import { readFileSync } from 'node:fs';
import { parsePdfSource } from '../src/source/pdf/parse-pdf-source.ts';

const warmRuns = Number(process.env.WARM_RUNS ?? '3');
const files = process.argv.slice(2).map((path) => ({ path, bytes: readFileSync(path) }));
const readAll = async () => {
  const start = performance.now();
  const parsed = await Promise.all(files.map(({ path, bytes }) => parsePdfSource(bytes, path)));
  return { ms: performance.now() - start, products: parsed.reduce((sum, source) => sum + source.lists[0]!.products.length, 0) };
};
const cold = await readAll();
const warm: number[] = [];
for (let i = 0; i < warmRuns; i++) warm.push((await readAll()).ms);
console.log(JSON.stringify({ coldMs: cold.ms, warmMs: warm, products: cold.products, peakRssMb: process.resourceUsage().maxRSS / 1024 }));
