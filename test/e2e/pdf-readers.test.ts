import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makePageDag, makeSlowPdf } from '../../fixtures/adm-pdf.ts';
import { measuredCommand } from '../helpers/measured-command.ts';
import { processMark } from '../helpers/process-tree.ts';
import { CLI, REPO, runCliProcess } from '../helpers/run-cli.ts';
import { startServe } from '../helpers/serve-process.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import { waitFor } from '../helpers/wait-for.ts';

// The commands that read a PDF, as an operator runs them: real processes, with their readers.
const READER = 'page-runs-worker';
const REAL_LIST = join(REPO, 'fixtures/adm/listino-liquidi-2026-11-01.pdf');
/** What the whole command (the command and its readers) may hold at most on hostile input (docs/source-format.md). */
const MEMORY_BOUND = 400 * 1024 * 1024;

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'tariff-pdf-readers-'));
  // Page trees that name one page over and over: a DAG, not a loop, of 10⁶, 10⁸ and (wide) 10⁶ pages, and one without /Count.
  writeFileSync(join(dir, 'million.pdf'), makePageDag(6, 10));
  writeFileSync(join(dir, 'deeper.pdf'), makePageDag(8, 10));
  writeFileSync(join(dir, 'wider.pdf'), makePageDag(3, 100));
  writeFileSync(join(dir, 'uncounted.pdf'), makePageDag(7, 10, { counted: false }));
  writeFileSync(join(dir, 'slow.pdf'), makeSlowPdf());
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a PDF whose page tree names one page a million times', () => {
  const commands = {
    build: (file: string, dataDir: string) => ['build', '--source', file, '--out', join(dataDir, 'out'), '--data-dir', dataDir],
    'history import': (file: string, dataDir: string) => ['history', 'import', file, '--data-dir', dataDir],
    inspect: (file: string) => ['inspect', file],
  };
  for (const [command, args] of Object.entries(commands))
    it(`is refused by ${command} as a PDF fault, the whole command within its memory bound, no reader left`, async () => {
      for (const [name, fault] of [
        ['million.pdf', 'its page tree counts 1000000 pages, more than 2000'],
        ['deeper.pdf', 'its page tree leads to no page'],
        ['wider.pdf', 'its page tree counts 1000000 pages, more than 2000'],
        ['uncounted.pdf', 'its page tree leads to no page'],
      ] as const) {
        const result = await measuredCommand(args(join(dir, name), await tempDir()));
        console.info(
          `${command} ${name}: exit ${result.status} in ${result.seconds.toFixed(2)} s, peak ${(result.peak / 1048576).toFixed(0)} MB`,
        );
        expect(result.status, result.stderr).toBe(1);
        const said = `${result.stdout}${result.stderr}`;
        expect(said, `${name}: ${said}`).toContain(fault);
        expect(said, name).not.toContain('not a price list');
        expect(result.peak, name).toBeLessThan(MEMORY_BOUND);
        // Killed as the command exits; gone once the system has ended them (a guard, not a speed claim).
        await waitFor(() => result.mark.pids(READER).length === 0, `${name}: every reader to end`, 10_000);
      }
    });
});

describe('a command stopped while its readers work', () => {
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGKILL'] as const)
    it(`${signal}: no reader outlives the command`, async () => {
      const mark = processMark();
      const dataDir = await tempDir();
      const child = spawn(
        process.execPath,
        [CLI, 'build', '--source', join(dir, 'slow.pdf'), '--out', join(dataDir, 'out'), '--data-dir', dataDir],
        {
          stdio: 'ignore',
          env: { ...process.env, ...mark.env },
        },
      );
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      try {
        await waitFor(() => mark.pids(READER).length > 0, 'the command to be reading');
        child.kill(signal);
        await exited;
        await waitFor(() => mark.pids(READER).length === 0, 'every reader to end', 10_000);
      } finally {
        child.kill('SIGKILL');
        for (const pid of mark.pids()) process.kill(pid, 'SIGKILL');
      }
    });

  it('50 history imports on a busy machine leave no reader behind', async () => {
    const mark = processMark();
    // Every core but one kept busy: readers start and end late, as on a loaded host.
    const burners = Array.from({ length: Math.max(1, availableParallelism() - 1) }, () =>
      spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }),
    );
    try {
      for (let batch = 0; batch < 10; batch += 1) {
        const runs = await Promise.all(
          Array.from({ length: 5 }, async () =>
            runCliProcess(['history', 'import', REAL_LIST, '--data-dir', await tempDir()], { env: mark.env }),
          ),
        );
        for (const run of runs) expect(run.status, run.stderr).toBe(0);
      }
      await waitFor(() => mark.pids(READER).length === 0, 'every reader to end', 10_000);
    } finally {
      for (const burner of burners) burner.kill('SIGKILL');
      for (const pid of mark.pids()) process.kill(pid, 'SIGKILL');
    }
  }, 240_000);
});

describe('a command that reads PDFs and then goes on', () => {
  it('tariff start, once serving, keeps no reader alive', async () => {
    const mark = processMark();
    const service = await startServe(['start', '--data-dir', await tempDir()], mark.env);
    try {
      // It read the bundled lists with its readers; serving, it needs none.
      await waitFor(() => mark.pids(READER).length === 0, 'the readers to end once the build is done', 10_000);
      expect(mark.pids().length, 'one process serves').toBe(1);
    } finally {
      await service.stop();
    }
  });
});
