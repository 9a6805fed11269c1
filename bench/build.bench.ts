// npm run bench:build: builds the generated 10,000-product / 100,000-barcode tariff several
// times, each in a fresh process, and prints the median wall time per stage, the compressed
// sizes and the peak memory; then the whole `tariff build` of it as a process. Targets on the
// 2-core reference machine: the whole CLI build ≤ 2.5 s, < 400 MB RSS.
// Then reads the authority's six real lists side by side with `pdftotext -layout` in each run
// (target: at most 1.5× pdftotext, warm, for all of them together) and times the whole
// `tariff build` of them (target: ≤ 1.0 s). BENCH_ONLY=pdf runs only the second part.
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { reportGoal } from './goal-rows.ts';
import { REAL_LISTS } from '../fixtures/adm-real-lists.ts';
import { generateTariff } from '../fixtures/generate-tariff.ts';

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length % 2 ? sorted[(sorted.length - 1) / 2]! : (sorted[sorted.length / 2 - 1]! + sorted[sorted.length / 2]!) / 2;
};
const range = (values: number[], digits = 0) => `${Math.min(...values).toFixed(digits)}–${Math.max(...values).toFixed(digits)}`;
const work = await mkdtemp(join(tmpdir(), 'tariff-bench-build-'));
try {
  if (process.env.BENCH_ONLY !== 'pdf') await benchGenerated();
  await benchRealList();
} finally {
  await rm(work, { recursive: true, force: true });
}

async function benchGenerated() {
  const generated = generateTariff({ products: 10_000, barcodes: 100_000, effectiveFrom: '2026-11-01' });
  await mkdir(join(work, 'input', 'tariff'), { recursive: true });
  for (const doc of generated.documents) await writeFile(join(work, 'input', 'tariff', doc.name), doc.bytes);
  await writeFile(join(work, 'input', 'barcodes.csv'), generated.barcodesCsv);

  const once = fileURLToPath(new URL('./build-once.ts', import.meta.url));
  const results = [];
  for (let run = 0; run < RUNS; run++) {
    const output = execFileSync(process.execPath, [once, join(work, 'input'), join(work, 'out')], { encoding: 'utf8' });
    results.push(JSON.parse(output.trim().split('\n').at(-1)!));
  }
  const stages = Object.keys(results[0].stages);
  console.log(
    `bench:build: ${results[0].counts.products} products, ${results[0].counts.barcodes} barcodes, ${RUNS} runs (fresh process each)`,
  );
  console.log(`  ${'stage'.padEnd(12)} ${'median ms'.padStart(10)} ${'min ms'.padStart(8)} ${'max ms'.padStart(8)}`);
  for (const stage of [...stages, 'wall']) {
    const values = results.map((r) => (stage === 'wall' ? r.wallMs : r.stages[stage]));
    console.log(
      `  ${stage.padEnd(12)} ${median(values).toFixed(1).padStart(10)} ${Math.min(...values)
        .toFixed(1)
        .padStart(8)} ${Math.max(...values)
        .toFixed(1)
        .padStart(8)}`,
    );
  }
  for (const [format, size] of Object.entries(results[0].sizes))
    console.log(`  size ${format.padEnd(7)} ${(Number(size) / 1024).toFixed(1)} KiB compressed`);
  const peak = results.map((r) => r.peakRssMb);
  console.log(`  peak RSS     median ${median(peak).toFixed(0)} MB, max ${Math.max(...peak).toFixed(0)} MB`);
  // The same build through the real command line, process start-up and module loading included.
  const cli = fileURLToPath(new URL('../bin/tariff.js', import.meta.url));
  const cliWall: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const start = performance.now();
    execFileSync(
      process.execPath,
      [
        cli,
        'build',
        '--source',
        join(work, 'input', 'tariff'),
        '--barcodes',
        join(work, 'input', 'barcodes.csv'),
        '--out',
        join(work, 'cli-out'),
        '--date',
        '2026-11-22',
      ],
      { stdio: 'ignore' },
    );
    cliWall.push(performance.now() - start);
  }
  console.log(`  tariff build (whole CLI process) median ${median(cliWall).toFixed(0)} ms (range ${range(cliWall)})`);
  const wall = median(results.map((r) => r.wallMs));
  const whole = median(cliWall);
  console.log(
    `  ${whole.toFixed(0)} ms CLI, ${wall.toFixed(0)} ms in-process; peak RSS < 400 MB → ${Math.max(...peak) < 400 ? 'met' : 'MISSED'} (${Math.max(...peak).toFixed(0)} MB)`,
  );
  reportGoal({
    what: 'whole tariff build, 10k generated products',
    unit: 'ms',
    runs: cliWall,
    reference: `in-process ${wall.toFixed(0)} ms`,
    goal: 2000,
  });
}

/** The real lists, each run: pdftotext on each, our reader in a fresh process (cold, then warm), the whole CLI build of them all. */
async function benchRealList() {
  const dir = fileURLToPath(new URL('../fixtures/adm/', import.meta.url));
  const pdfs = REAL_LISTS.map((name) => join(dir, name));
  const once = fileURLToPath(new URL('./read-pdf-once.ts', import.meta.url));
  const cli = fileURLToPath(new URL('../bin/tariff.js', import.meta.url));
  const rows: { pdftotext: number; cold: number; warm: number; cli: number; rss: number }[] = [];
  console.log(`\nbench:build, the authority's ${pdfs.length} real lists (110 pages, 6,172 rows), ${RUNS} runs side by side`);
  console.log(
    `  ${'run'.padEnd(4)} ${'pdftotext'.padStart(10)} ${'ours cold'.padStart(10)} ${'ours warm'.padStart(10)} ${'warm ratio'.padStart(11)} ${'tariff build'.padStart(13)}`,
  );
  for (let run = 0; run < RUNS; run++) {
    const t0 = performance.now();
    for (const pdf of pdfs) execFileSync('pdftotext', ['-layout', pdf, join(work, 'list.txt')]);
    const pdftotext = performance.now() - t0;
    const result = JSON.parse(
      execFileSync(process.execPath, [once, ...pdfs], { encoding: 'utf8' })
        .trim()
        .split('\n')
        .at(-1)!,
    );
    const sources = pdfs.flatMap((pdf) => ['--source', pdf]);
    const t1 = performance.now();
    execFileSync(
      process.execPath,
      [cli, 'build', ...sources, '--out', join(work, 'real-out'), '--date', '2026-11-22', '--data-dir', join(work, 'data')],
      {
        stdio: 'ignore',
      },
    );
    const cliMs = performance.now() - t1;
    const row = { pdftotext, cold: result.coldMs, warm: median(result.warmMs), cli: cliMs, rss: result.peakRssMb };
    rows.push(row);
    console.log(
      `  ${String(run + 1).padEnd(4)} ${row.pdftotext.toFixed(0).padStart(8)}ms ${row.cold.toFixed(0).padStart(8)}ms ${row.warm.toFixed(0).padStart(8)}ms ${(row.warm / row.pdftotext).toFixed(2).padStart(10)}× ${row.cli.toFixed(0).padStart(11)}ms`,
    );
  }
  const warmRatios = rows.map((r) => r.warm / r.pdftotext);
  const coldRatios = rows.map((r) => r.cold / r.pdftotext);
  const cliMs = rows.map((r) => r.cli);
  console.log(
    `  pdftotext -layout   median ${median(rows.map((r) => r.pdftotext)).toFixed(0)} ms (range ${range(rows.map((r) => r.pdftotext))})`,
  );
  console.log(
    `  our reader, warm    median ${median(rows.map((r) => r.warm)).toFixed(0)} ms (range ${range(rows.map((r) => r.warm))}); ${median(warmRatios).toFixed(2)}× pdftotext (range ${range(warmRatios, 2)})`,
  );
  console.log(
    `  our reader, cold    median ${median(rows.map((r) => r.cold)).toFixed(0)} ms (range ${range(rows.map((r) => r.cold))}); ${median(coldRatios).toFixed(2)}× pdftotext (range ${range(coldRatios, 2)})`,
  );
  console.log(`  peak RSS of the reading process: median ${median(rows.map((r) => r.rss)).toFixed(0)} MB`);
  console.log(
    `  tariff build of the ${pdfs.length} lists (whole CLI process) median ${median(cliMs).toFixed(0)} ms (range ${range(cliMs)})`,
  );
  const verdict = (values: number[], limit: number) =>
    Math.max(...values) <= limit ? 'met' : median(values) <= limit ? 'met in the median, not in every run' : 'MISSED';
  console.log(`  targets: reading ≤ 1.5× pdftotext warm → ${verdict(warmRatios, 1.5)}; whole build ≤ 1000 ms → ${verdict(cliMs, 1000)}`);
  const pdftotext = `pdftotext -layout ${median(rows.map((r) => r.pdftotext)).toFixed(0)} ms`;
  reportGoal({
    what: 'tariff build of the six real lists, vs pdftotext',
    unit: '×',
    runs: rows.map((r) => r.cli / r.pdftotext),
    reference: pdftotext,
    goal: 2,
  });
  reportGoal({ what: 'PDF reading, cold process, vs pdftotext', unit: '×', runs: coldRatios, reference: pdftotext, goal: 1.5 });
  reportGoal({ what: 'PDF reading, warm, vs pdftotext', unit: '×', runs: warmRatios, reference: pdftotext, goal: 1.0 });
}
