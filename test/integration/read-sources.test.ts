import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS } from '../../src/config/settings.ts';
import { readSources } from '../../src/fetch/read-sources.ts';
import { pdfReadersRunning } from '../../src/source/pdf/read-pdf-runs.ts';
import { REPO } from '../helpers/run-cli.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const LIST = join(REPO, 'fixtures/sample/tariff/sigarette-2026-11-01.xml');

/** Reads as a build does: a guard against a file that never ends (a hang), not a speed claim. */
async function readWithin(paths: string[], settings = DEFAULT_SETTINGS) {
  const bound = new Promise<'still reading'>((resolve) => setTimeout(() => resolve('still reading'), 10_000).unref());
  return Promise.race([
    readSources(paths, settings, { parse: true }).then(
      () => 'read' as const,
      (error: Error) => error,
    ),
    bound,
  ]);
}

describe('reading the source documents named on the command line', () => {
  it('refuses a FIFO, a device, a link to one and a link to a link, by name, at once', async () => {
    const dir = await tempDir();
    const fifo = join(dir, 'list.pdf');
    execFileSync('mkfifo', [fifo]);
    symlinkSync('/dev/zero', join(dir, 'zero.pdf'));
    symlinkSync(join(dir, 'zero.pdf'), join(dir, 'twice.pdf'));
    for (const [path, said] of [
      [fifo, 'it is a FIFO, not a file'],
      ['/dev/zero', 'it is a character device, not a file'],
      [join(dir, 'zero.pdf'), 'it is a link to a character device (/dev/zero), not to a file'],
      [join(dir, 'twice.pdf'), 'it is a link to a link to a link'],
    ] as const) {
      const outcome = await readWithin([path]);
      expect(outcome, path).toBeInstanceOf(Error);
      expect((outcome as Error).message, path).toContain(said);
    }
  });

  it('ends the PDF readers once every document is parsed: what the build does next is not charged their memory', async () => {
    const list = join(REPO, 'fixtures/adm/listino-trinciati-2023-05-17.pdf');
    const [document] = await readSources([list], DEFAULT_SETTINGS, { parse: true });
    expect(document!.parsed).toBeTruthy();
    expect(pdfReadersRunning()).toBe(0);
  });

  it('follows a link once to a regular file, also in a folder', async () => {
    const dir = await tempDir();
    copyFileSync(LIST, join(dir, 'real.xml'));
    mkdirSync(join(dir, 'folder'));
    symlinkSync(join(dir, 'real.xml'), join(dir, 'folder', 'linked.xml'));
    const [doc] = await readSources([join(dir, 'folder')], DEFAULT_SETTINGS, { parse: true });
    expect(doc).toMatchObject({ name: join(dir, 'folder', 'linked.xml'), parsed: { lists: [expect.anything()] } });
    expect(doc!.digest?.size).toBeGreaterThan(0);
  });

  it('counts bytes as they are read: a file over the cap is refused whatever its size says', async () => {
    const dir = await tempDir();
    writeFileSync(join(dir, 'big.xml'), Buffer.alloc(5000, ' '));
    const outcome = await readWithin([join(dir, 'big.xml')], { ...DEFAULT_SETTINGS, fetchMaxBytes: 1000 });
    expect((outcome as Error).message).toContain('the tariff source is larger than 1000 bytes');
  });

  it('reads a folder a few documents at a time: 30 files of 60 MB cost the memory of a few', async () => {
    const dir = await tempDir();
    // Sparse: 1.8 GB to read, no disk spent.
    for (let i = 0; i < 30; i++) {
      const file = join(dir, `listino-${i}.pdf`);
      writeFileSync(file, '');
      truncateSync(file, 60 * 1024 * 1024);
    }
    const script = join(REPO, 'test/helpers/read-folder.ts');
    const report = JSON.parse(execFileSync(process.execPath, [script, dir], { encoding: 'utf8' }).trim().split('\n').at(-1)!);
    expect(report.error).toContain('listino-0.pdf');
    expect(report.peakRssMb).toBeLessThan(400);
  });
});
