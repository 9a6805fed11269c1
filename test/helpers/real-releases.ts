import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { makeNoticePdf } from '../../fixtures/adm-pdf.ts';
import { REPO, runCli } from './run-cli.ts';
import { serveInProcess } from './serve-in-process.ts';
import { startServe, type RunningServe } from './serve-process.ts';

/** The authority's real cigar list (22/07/2026). */
export const REAL_LIST = join(REPO, 'fixtures/adm/listino-sigari-2026-07-22.pdf');

/**
 * Publishes two releases to the data dir's bucket: the real list as 20260722.1, with a notice of 1
 * August 2026 that raises 20663 from 240,00 to 250,00 and cuts 19784 from 199,50 to 190,00 (so
 * that release announces those prices), then the same as 20260801.1 (current), built against the
 * first so it carries those changes.
 */
export async function publishRealReleases(dataDir: string): Promise<void> {
  const cli = (args: string[]) => runCli([...args, '--data-dir', dataDir]);
  const notice = join(dataDir, 'avviso-agosto.pdf');
  await writeFile(
    notice,
    await makeNoticePdf({
      sentence: 'Le nuove tariffe si applicano con decorrenza dal 1° agosto 2026.',
      tables: [
        {
          category: 'Sigari',
          withCode: true,
          rows: [
            ['20663', '2012 BY OSCAR VALLADARES COROJO ROBUSTO', 'da 20 pezzi', '2.400,00', '2.500,00', '250,00'],
            ['19784', 'ADVENTURA THE EXPLORER CORONA GORDA', 'da 19 pezzi', '2.100,00', '2.000,00', '190,00'],
          ],
        },
      ],
    }),
  );
  // A pack and a carton of 10 of TOSCANO T (21825): what a till scans (docs/sync.md).
  const barcodes = join(dataDir, 'barcodes.csv');
  await writeFile(barcodes, 'barcode,admCode,kind,units\n8001002001004,21825,pack,1\n18001002001001,21825,carton,10\n');
  const july = join(dataDir, 'build', 'july');
  const august = join(dataDir, 'build', 'august');
  const julyBuild = ['build', '--source', REAL_LIST, '--source', notice, '--barcodes', barcodes, '--date', '2026-07-22', '--out', july];
  expect((await cli(julyBuild)).status).toBe(0);
  expect((await cli(['publish', july])).status).toBe(0);
  const built = await cli([
    'build',
    '--source',
    REAL_LIST,
    '--source',
    notice,
    '--barcodes',
    barcodes,
    '--date',
    '2026-08-01',
    '--previous',
    july,
    '--out',
    august,
  ]);
  expect(built.stderr).toContain('changes since 20260722.1: 1 price rise(s), 1 price cut(s)');
  expect((await cli(['publish', august])).status).toBe(0);
}

/**
 * For a whole test file: a data dir holding the two real releases, served by the service in this
 * process (with `process: true`, by `tariff serve` as a process). The dir is the file's own
 * (tempDir's are removed after each test, and the service reads it throughout), removed after the file.
 */
export function serveRealReleases(
  env: Record<string, string>,
  how: { process?: boolean } = {},
): { dataDir: string; service: RunningServe } {
  const stand = { dataDir: '', service: null as unknown as RunningServe };
  beforeAll(async () => {
    stand.dataDir = await mkdtemp(join(tmpdir(), 'tariff-real-'));
    await publishRealReleases(stand.dataDir);
    stand.service = how.process ? await startServe(['serve', '--data-dir', stand.dataDir], env) : await serveInProcess(stand.dataDir, env);
  });
  afterAll(async () => {
    await stand.service?.stop();
    if (stand.dataDir) await rm(stand.dataDir, { recursive: true, force: true });
  });
  return stand;
}
