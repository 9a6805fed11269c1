// One build of a generated tariff in a fresh process, so peak memory is the build's own.
// Prints one JSON line; bench/build.bench.ts runs it several times and aggregates.
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseBarcodeList } from '../src/dataset/parse-barcode-list.ts';
import { buildRelease } from '../src/pipeline/build-release.ts';
import { writeReleaseDir } from '../src/release/write-release-dir.ts';

const [inputDir, outDir] = process.argv.slice(2) as [string, string];
const start = performance.now();
const names = (await readdir(join(inputDir, 'tariff'))).sort();
const sources = await Promise.all(names.map(async (name) => ({ name, bytes: await readFile(join(inputDir, 'tariff', name)) })));
const barcodesStart = performance.now();
const barcodes = parseBarcodeList(await readFile(join(inputDir, 'barcodes.csv'), 'utf8'), 'barcodes.csv');
const barcodesMs = performance.now() - barcodesStart;
const scratchDir = await mkdtemp(join(tmpdir(), 'tariff-bench-'));
const built = await buildRelease({
  sources,
  barcodes,
  date: '2026-11-22',
  baseUrl: 'http://127.0.0.1:8080/v1',
  previous: null,
  allowShrink: false,
  maxShrinkPercent: 20,
  now: () => new Date(),
  scratchDir,
});
const writeStart = performance.now();
await writeReleaseDir(built, outDir);
const writeMs = performance.now() - writeStart;
await rm(scratchDir, { recursive: true, force: true });
console.log(
  JSON.stringify({
    wallMs: performance.now() - start,
    stages: { ...built.timings, barcodes: barcodesMs, write: writeMs },
    sizes: Object.fromEntries(Object.entries(built.manifest.files).map(([format, file]) => [format, file.size])),
    counts: built.manifest.counts,
    peakRssMb: process.resourceUsage().maxRSS / 1024,
  }),
);
