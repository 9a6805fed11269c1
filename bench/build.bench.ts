// npm run bench:build: builds the generated 10,000-product / 100,000-barcode tariff several
// times, each in a fresh process, and prints the median wall time per stage, the compressed
// sizes and the peak memory. Target on the 2-core reference machine: < 3 s, < 400 MB RSS.
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateTariff } from '../fixtures/generate-tariff.ts';

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const work = await mkdtemp(join(tmpdir(), 'tariff-bench-build-'));
try {
  const generated = generateTariff({ products: 10_000, barcodes: 100_000, effectiveFrom: '2026-11-01' });
  await mkdir(join(work, 'input', 'tariff'), { recursive: true });
  for (const doc of generated.documents) await writeFile(join(work, 'input', 'tariff', doc.name), doc.bytes);
  await writeFile(join(work, 'input', 'barcodes.csv'), generated.barcodesCsv);

  const once = fileURLToPath(new URL('./build-once.ts', import.meta.url));
  const results = [];
  for (let run = 0; run < RUNS; run++) {
    const output = execFileSync(process.execPath, ['--import', 'tsx', once, join(work, 'input'), join(work, 'out')], { encoding: 'utf8' });
    results.push(JSON.parse(output.trim().split('\n').at(-1)!));
  }
  const median = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    return sorted.length % 2 ? sorted[(sorted.length - 1) / 2]! : (sorted[sorted.length / 2 - 1]! + sorted[sorted.length / 2]!) / 2;
  };
  const stages = Object.keys(results[0].stages);
  console.log(`bench:build: ${results[0].counts.products} products, ${results[0].counts.barcodes} barcodes, ${RUNS} runs (fresh process each)`);
  console.log(`  ${'stage'.padEnd(12)} ${'median ms'.padStart(10)} ${'min ms'.padStart(8)} ${'max ms'.padStart(8)}`);
  for (const stage of [...stages, 'wall']) {
    const values = results.map((r) => (stage === 'wall' ? r.wallMs : r.stages[stage]));
    console.log(`  ${stage.padEnd(12)} ${median(values).toFixed(1).padStart(10)} ${Math.min(...values).toFixed(1).padStart(8)} ${Math.max(...values).toFixed(1).padStart(8)}`);
  }
  for (const [format, size] of Object.entries(results[0].sizes)) console.log(`  size ${format.padEnd(7)} ${(Number(size) / 1024).toFixed(1)} KiB compressed`);
  const peak = results.map((r) => r.peakRssMb);
  console.log(`  peak RSS     median ${median(peak).toFixed(0)} MB, max ${Math.max(...peak).toFixed(0)} MB`);
  // The same build through the real command line, process start-up and module loading included.
  const cli = fileURLToPath(new URL('../bin/tariff.js', import.meta.url));
  const cliWall: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const start = performance.now();
    execFileSync(process.execPath, [cli, 'build', '--source', join(work, 'input', 'tariff'), '--barcodes', join(work, 'input', 'barcodes.csv'), '--out', join(work, 'cli-out'), '--date', '2026-11-22'], { stdio: 'ignore' });
    cliWall.push(performance.now() - start);
  }
  console.log(`  tariff build (whole CLI process) median ${median(cliWall).toFixed(0)} ms, max ${Math.max(...cliWall).toFixed(0)} ms`);
  const wall = median(results.map((r) => r.wallMs));
  const whole = median(cliWall);
  console.log(`  target: whole build < 3000 ms → ${whole < 3000 ? 'met' : 'MISSED'} (${whole.toFixed(0)} ms CLI, ${wall.toFixed(0)} ms in-process); peak RSS < 400 MB → ${Math.max(...peak) < 400 ? 'met' : 'MISSED'} (${Math.max(...peak).toFixed(0)} MB)`);
} finally {
  await rm(work, { recursive: true, force: true });
}
