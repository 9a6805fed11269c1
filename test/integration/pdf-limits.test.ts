import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDeflate } from 'node:zlib';
import { PDFDocument, PDFName, PDFRawStream, StandardFonts } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { readPdfRuns } from '../../src/source/pdf/read-pdf-runs.ts';
import { READER_LIMITS } from '../../src/source/pdf/reader-tolerances.ts';
import { parsePdfSource } from '../../src/source/pdf/parse-pdf-source.ts';
import { makeCrowdedPdf, makeSlowPdf } from '../../fixtures/adm-pdf.ts';
import { makeIncrementalUpdates } from '../../fixtures/hostile-pdfs.ts';
import { REPO } from '../helpers/run-cli.ts';
import { waitFor } from '../helpers/wait-for.ts';

const REAL_LIST = readFileSync(`${REPO}/fixtures/adm/listino-sigarette-2023-10-10.pdf`);

/** One page holding more characters than any price list: what a hostile or broken file could be. */
async function crowdedPage(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const page = doc.addPage([2000, 2000]);
  const line = '1234567890 '.repeat(20);
  const lines = Math.ceil(READER_LIMITS.charsPerPage / 200) + 50;
  for (let i = 0; i < lines; i++) page.drawText(line, { x: 5, y: 1995 - (i * 1990) / lines, size: 1, font });
  return doc.save();
}

/** A page whose content stream is `megabytes` of spaces deflated to a few hundred kilobytes: a deflate bomb. */
async function deflateBomb(megabytes: number): Promise<Uint8Array> {
  const deflate = createDeflate({ level: 9 });
  const chunks: Buffer[] = [];
  deflate.on('data', (chunk: Buffer) => chunks.push(chunk));
  const spaces = Buffer.alloc(1024 * 1024, ' ');
  for (let i = 0; i < megabytes; i++) if (!deflate.write(spaces)) await new Promise((resolve) => deflate.once('drain', resolve));
  await new Promise((resolve) => deflate.end(resolve));
  const packed = Buffer.concat(chunks);
  const doc = await PDFDocument.create();
  const page = doc.addPage([600, 800]);
  const stream = PDFRawStream.of(doc.context.obj({ Filter: 'FlateDecode', Length: packed.length }), packed);
  page.node.set(PDFName.of('Contents'), doc.context.register(stream));
  return doc.save();
}

describe('the PDF reader against documents no price list resembles', () => {
  it(`refuses a page of more than ${READER_LIMITS.charsPerPage} characters before reading it, naming the page`, async () => {
    await expect(readPdfRuns(await crowdedPage(), 'crowded.pdf')).rejects.toMatchObject({
      code: 'source_pdf_unreadable',
      message: expect.stringMatching(
        /crowded\.pdf: cannot read the PDF: page 1 holds \d+ characters, more than 200000: no price list does/,
      ),
    });
  });

  it(`refuses a page of 300,000 text runs, more than ${READER_LIMITS.objectsPerPage} objects, before laying its text out, naming the page`, async () => {
    const crowded = await makeCrowdedPdf(300_000);
    await expect(readPdfRuns(crowded, 'crowded.pdf')).rejects.toMatchObject({
      code: 'source_pdf_unreadable',
      // Parsing its 300,005 objects takes PDFium past the reader's heap before they can be counted.
      message: `crowded.pdf: cannot read the PDF: page 1 needs more than ${READER_LIMITS.heapBytes / 1048576} MB of memory to read: no price list does (far more text than a list prints, or a stream that unpacks to far more than it holds)`,
    });
    // With room in the heap, the count refuses it, naming the page.
    await expect(readPdfRuns(crowded, 'crowded.pdf', { limits: { heapBytes: 256 * 1024 * 1024 } })).rejects.toMatchObject({
      message:
        'crowded.pdf: cannot read the PDF: page 1 holds 300005 objects (text runs, lines, images), more than 100000: no price list does',
    });
  });

  it('reads a page of 60,000 runs in one block across every column through to its problems', async () => {
    // Every candidate cut of the one block counted its runs one by one: 17 s for this page.
    const error = await parsePdfSource(await makeCrowdedPdf(60_000), 'crowded.pdf').catch((caught: Error) => caught);
    expect(error).toMatchObject({ code: 'source_invalid', message: expect.stringContaining("no title with the list's date") });
  });

  it('refuses a page of more text runs than its limit', async () => {
    await expect(readPdfRuns(REAL_LIST, 'sigarette.pdf', { limits: { runsPerPage: 10 } })).rejects.toMatchObject({
      message: expect.stringContaining('page 1 holds more than 10 text runs'),
    });
  });

  it("stops a reading past its limit of the reader's own processor time, and reads the next document on a fresh reader", async () => {
    await expect(readPdfRuns(makeSlowPdf(), 'slow.pdf', { threads: 1, limits: { readerCpuMs: 500 } })).rejects.toMatchObject({
      code: 'source_pdf_unreadable',
      message:
        "slow.pdf: cannot read the PDF: reading its pages took more than 0.5 s of the reader's processor time; a price list takes well under one",
    });
    expect((await readPdfRuns(REAL_LIST, 'sigarette.pdf', { threads: 1 })).length).toBeGreaterThan(0);
  });

  it("stops opening a document past its limit of the reader's own processor time (100,000 incremental updates)", async () => {
    // Read with no structure check before it (readPdfRuns): the limit is the readers' own.
    await expect(readPdfRuns(makeIncrementalUpdates(), 'updates.pdf', { threads: 1, limits: { openCpuMs: 300 } })).rejects.toMatchObject({
      code: 'source_pdf_unreadable',
      message:
        "updates.pdf: cannot read the PDF: opening it (its cross-reference sections and page tree) took more than 0.3 s of the reader's processor time; a price list opens in milliseconds",
    });
  });

  it("says the machine gave the reader no time when the clock's backstop passes, never that the document is damaged", async () => {
    await expect(readPdfRuns(REAL_LIST, 'sigarette.pdf', { limits: { deadlineMs: 1 } })).rejects.toMatchObject({
      code: 'machine_busy',
      message: expect.stringMatching(
        /^sigarette\.pdf: the machine did not give the PDF reader time to finish \(reading its pages was still under way after 0\.001 s/,
      ),
    });
    expect((await readPdfRuns(REAL_LIST, 'sigarette.pdf')).length).toBeGreaterThan(0);
  });

  it("refuses a deflate bomb once PDFium's heap reaches its limit, and reads the next document on a fresh thread", async () => {
    const bomb = await deflateBomb(160);
    expect(bomb.length).toBeLessThan(1024 * 1024);
    await expect(readPdfRuns(bomb, 'bomb.pdf', { threads: 1, limits: { heapBytes: 64 * 1024 * 1024 } })).rejects.toMatchObject({
      code: 'source_pdf_unreadable',
      message:
        'bomb.pdf: cannot read the PDF: page 1 needs more than 64 MB of memory to read: no price list does (far more text than a list prints, or a stream that unpacks to far more than it holds)',
    });
    expect((await readPdfRuns(REAL_LIST, 'sigarette.pdf', { threads: 1 })).length).toBeGreaterThan(0);
  });

  it('a hostile document read beside six real lists, each with a tight limit of processor time, fails alone: the six read', async () => {
    const names = ['sigarette', 'sigaretti', 'trinciati', 'altri-tabacchi', 'fiuto-mastico', 'liquidi'].map(
      (category) => `listino-${category}-2026-11-01.pdf`,
    );
    const limits = { readerCpuMs: 3_000 };
    // The hostile one first: its shares take the readers, and the lists queue behind them.
    const [hostile, ...lists] = await Promise.allSettled([
      readPdfRuns(makeSlowPdf(), 'slow.pdf', { limits }),
      ...names.map((name) => readPdfRuns(readFileSync(`${REPO}/fixtures/adm/${name}`), name, { limits })),
    ]);
    expect(hostile).toMatchObject({
      status: 'rejected',
      reason: { message: expect.stringContaining("took more than 3 s of the reader's processor time") },
    });
    for (const [i, list] of lists.entries()) {
      expect(list.status, `${names[i]}: ${list.status === 'rejected' ? (list.reason as Error).message : ''}`).toBe('fulfilled');
      expect((list as PromiseFulfilledResult<unknown[]>).value.length, names[i]).toBeGreaterThan(0);
    }
  });

  it('stops a document past its limit for good: the reader killed, its memory and processor given back', () => {
    const script = join(REPO, 'test/helpers/read-hostile-pdf.ts');
    const report = JSON.parse(
      execFileSync(process.execPath, [script, '2000'], { encoding: 'utf8', timeout: 30_000 }).trim().split('\n').at(-1)!,
    );
    expect(report.error).toContain("reading its pages took more than 2 s of the reader's processor time");
    expect(report.readers).toEqual([]);
    expect(report.rssMb).toBeLessThan(200);
    // Idle: nothing reads on in the background (a thread that could not be stopped would hold a core).
    expect(report.cpuMs).toBeLessThan(300);
  });

  it('a command reading it stops on SIGTERM long before its limit, and its reader with it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tariff-slow-'));
    writeFileSync(join(dir, 'slow.pdf'), makeSlowPdf());
    const child = spawn(
      process.execPath,
      [join(REPO, 'bin/tariff.js'), 'build', '--source', join(dir, 'slow.pdf'), '--out', join(dir, 'out'), '--data-dir', dir],
      {
        stdio: 'ignore',
      },
    );
    try {
      const readers = () =>
        spawnSync('ps', ['--ppid', String(child.pid), '-o', 'pid=,args='], { encoding: 'utf8' })
          .stdout.split('\n')
          .filter((line) => line.includes('page-runs-worker'));
      await waitFor(async () => readers().length > 0, 'the command to be reading');
      const reader = Number(readers()[0]!.trim().split(' ')[0]);
      const exited = new Promise<number | string | null>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)));
      child.kill('SIGTERM');
      // A guard, not a speed claim (bench:pdf-limits measures the stop): the reading would go on
      // until its reader's 20 s of processor time, so an exit before this is one on the signal.
      const bound = new Promise<'still running'>((resolve) => setTimeout(() => resolve('still running'), 30_000).unref());
      // Its orderly stop: the status a shell gives SIGTERM.
      expect(await Promise.race([exited, bound])).toBe(143);
      // The reader ends by itself once the command is gone.
      await waitFor(async () => !existsSync(`/proc/${reader}`), 'the reader to end');
    } finally {
      child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
