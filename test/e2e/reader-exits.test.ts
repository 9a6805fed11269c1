import { fork, spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeSlowPdf } from '../../fixtures/adm-pdf.ts';
import { READER_LIMITS, TOLERANCES } from '../../src/source/pdf/reader-tolerances.ts';
import { processMark } from '../helpers/process-tree.ts';
import { REPO } from '../helpers/run-cli.ts';
import { waitFor } from '../helpers/wait-for.ts';

// Every way a PDF reader's command goes ends the reader, at once and for good: its channel closing
// while it is idle, and its parent killed (alone, or with its process group) while it reads. 200 of
// each, 20 at a time; none may be left 3 s later (src/source/pdf/page-runs-worker.mjs).
const READER = join(REPO, 'src/source/pdf/page-runs-worker.mjs');
const PARENT = join(REPO, 'test/helpers/reader-parent.mjs');
const ROUNDS = 10;
const AT_ONCE = 20;

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'tariff-reader-exits-'));
  copyFileSync(join(REPO, 'fixtures/adm/listino-liquidi-2026-11-01.pdf'), join(dir, 'list.pdf'));
  writeFileSync(join(dir, 'slow.pdf'), makeSlowPdf());
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A reader that has read a list and waits for the next: idle, PDFium loaded, its watchdog running. */
async function idleReader(env: Record<string, string>): Promise<ChildProcess> {
  const reader = fork(READER, [], {
    serialization: 'advanced',
    stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
    env: { ...process.env, ...env },
  });
  await new Promise<void>((resolve, reject) => {
    reader.on('message', (reply: { done?: number; error?: { message: string } }) => {
      if (reply.done) resolve();
      if (reply.error) reject(new Error(reply.error.message));
    });
    reader.send({ id: 1, path: join(dir, 'list.pdf'), offset: 0, stride: 1, limits: READER_LIMITS, tolerances: TOLERANCES });
  });
  return reader;
}

/** A stand-in command whose reader is reading a slow document (test/helpers/reader-parent.mjs). */
async function readingParent(env: Record<string, string>): Promise<ChildProcess> {
  const parent = spawn(
    process.execPath,
    [PARENT, join(dir, 'slow.pdf'), JSON.stringify({ limits: READER_LIMITS, tolerances: TOLERANCES })],
    {
      detached: true,
      stdio: ['ignore', 'pipe', 'ignore'],
      env: { ...process.env, ...env },
    },
  );
  await new Promise<void>((resolve, reject) => {
    parent.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('reading') && resolve());
    parent.once('exit', (code) => reject(new Error(`the stand-in command ended (${code}) before its reader began`)));
  });
  return parent;
}

describe('a PDF reader never outlives its command', () => {
  it(`${ROUNDS * AT_ONCE} idle readers whose channel closes: none left after 3 s`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const mark = processMark();
      const readers = await Promise.all(Array.from({ length: AT_ONCE }, () => idleReader(mark.env)));
      try {
        expect(mark.pids('page-runs-worker')).toHaveLength(AT_ONCE);
        for (const reader of readers) reader.disconnect();
        await waitFor(() => mark.pids().length === 0, `round ${round}: every reader to end`, 3_000);
      } finally {
        for (const pid of mark.pids()) process.kill(pid, 'SIGKILL');
      }
    }
  }, 300_000);

  for (const how of ['by its pid', 'with its process group'] as const)
    it(`${(ROUNDS * AT_ONCE) / 2} commands SIGKILLed ${how} while their reader reads: none left after 3 s`, async () => {
      for (let round = 0; round < ROUNDS / 2; round++) {
        const mark = processMark();
        const parents = await Promise.all(Array.from({ length: AT_ONCE }, () => readingParent(mark.env)));
        try {
          expect(mark.pids('page-runs-worker')).toHaveLength(AT_ONCE);
          for (const parent of parents) process.kill(how === 'by its pid' ? parent.pid! : -parent.pid!, 'SIGKILL');
          await waitFor(() => mark.pids().length === 0, `round ${round}: every reader to end`, 3_000);
        } finally {
          for (const pid of mark.pids()) process.kill(pid, 'SIGKILL');
        }
      }
    }, 300_000);
});
