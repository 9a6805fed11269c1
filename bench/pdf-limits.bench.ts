// npm run bench:pdf-limits: how long the PDF reader takes over one page of 20,000, 60,000 and
// 300,000 text runs (fixtures/adm-pdf.ts, makeCrowdedPdf: a price list's header over rows whose
// text is one block across every column), to its verdict: the problems of the first two, the
// refusal of the third. The time per run says whether reading grows in proportion to the runs.
// Beside it, poppler's `pdftotext -layout` on the same page (stopped after 60 s). Median and range
// over BENCH_RUNS rounds (default 3), in one process with the reader's threads warm.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeCrowdedPdf } from '../fixtures/adm-pdf.ts';
import { parsePdfSource } from '../src/source/pdf/parse-pdf-source.ts';

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const SIZES = [20_000, 60_000, 300_000];
const dir = mkdtempSync(join(tmpdir(), 'tariff-bench-pdf-'));
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function readOnce(bytes: Uint8Array): Promise<{ ms: number; verdict: string }> {
  const started = performance.now();
  const verdict = await parsePdfSource(bytes, 'crowded.pdf').then(
    () => 'read',
    (error: Error) => error.message.slice(0, 110),
  );
  return { ms: performance.now() - started, verdict };
}

function pdftotext(path: string): number | null {
  const started = performance.now();
  const ran = spawnSync('pdftotext', ['-layout', path, '-'], { stdio: 'ignore', timeout: 60_000 });
  return ran.status === 0 ? performance.now() - started : null;
}

try {
  // Warm the reader's threads (PDFium's start is not the page's cost).
  await parsePdfSource(readFileSync('fixtures/adm/listino-sigarette-2026-11-01.pdf'), 'warm.pdf');
  const pages = await Promise.all(SIZES.map((runs) => makeCrowdedPdf(runs)));
  const times = SIZES.map(() => [] as number[]);
  const poppler = SIZES.map(() => [] as number[]);
  const verdicts: string[] = [];
  for (let round = 0; round < RUNS; round++) {
    for (const [i, bytes] of pages.entries()) {
      const { ms, verdict } = await readOnce(bytes);
      times[i]!.push(ms);
      verdicts[i] = verdict;
      const path = join(dir, `runs-${SIZES[i]}.pdf`);
      writeFileSync(path, bytes);
      const reference = pdftotext(path);
      if (reference !== null) poppler[i]!.push(reference);
    }
  }
  console.log(`one page, reader to its verdict; median (range) of ${RUNS} rounds; pdftotext -layout beside it`);
  for (const [i, runs] of SIZES.entries()) {
    const values = times[i]!;
    const perRun = (median(values) * 1000) / runs;
    const reference = poppler[i]!.length > 0 ? `${median(poppler[i]!).toFixed(0)} ms` : 'over 60 s';
    console.log(
      `  ${String(runs).padStart(7)} runs: ${median(values).toFixed(0)} ms (${Math.min(...values).toFixed(0)}–${Math.max(...values).toFixed(0)}), ${perRun.toFixed(1)} µs a run; pdftotext ${reference}`,
    );
    console.log(`           ${verdicts[i]}`);
  }
  console.log(`peak memory (max RSS) ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
process.exit(0);
