// Run as a process of its own by test/integration/pdf-limits.test.ts: reads a document past its
// limit of processor time, then says what the process holds once it was refused (its
// resident memory, how much processor it still uses, whether a reader is left), as one JSON line.
import { spawnSync } from 'node:child_process';
import { makeSlowPdf } from '../../fixtures/adm-pdf.ts';
import { readPdfRuns } from '../../src/source/pdf/read-pdf-runs.ts';

const readerCpuMs = Number(process.argv[2] ?? 2000);
let error = '';
try {
  await readPdfRuns(makeSlowPdf(), 'slow.pdf', { limits: { readerCpuMs } });
} catch (failure) {
  error = (failure as Error).message;
}
const refusedAt = performance.now();
// Soon after the refusal: the memory back, nothing still reading.
await new Promise((resolve) => setTimeout(resolve, 1_000));
const cpu = process.cpuUsage();
await new Promise((resolve) => setTimeout(resolve, 1_000));
const used = process.cpuUsage(cpu);
const cpuMs = (used.user + used.system) / 1000;
const readers = spawnSync('ps', ['--ppid', String(process.pid), '-o', 'pid=,args='], { encoding: 'utf8' })
  .stdout.split('\n')
  .filter((line) => line.includes('page-runs-worker'));
console.log(
  JSON.stringify({ error, rssMb: process.memoryUsage().rss / 1048576, cpuMs, readers, sinceRefusedMs: performance.now() - refusedAt }),
);
