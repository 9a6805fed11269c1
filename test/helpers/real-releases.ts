import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'vitest';
import { makeNoticePdf } from '../../fixtures/adm-pdf.ts';
import { REPO, runCli } from './run-cli.ts';

/** The authority's real cigar list (22/07/2026). */
export const REAL_LIST = join(REPO, 'fixtures/adm/listino-sigari-2026-07-22.pdf');

/**
 * Publishes two releases to the data dir's bucket: the real list as 20260722.1, then the real list
 * with a notice of 1 August 2026 that raises 20663 from 240,00 to 250,00 and cuts 19784 from 199,50
 * to 190,00, as 20260801.1 (current), built against the first so it carries those changes.
 */
export async function publishRealReleases(dataDir: string): Promise<void> {
  const cli = (args: string[]) => runCli([...args, '--data-dir', dataDir]);
  const notice = join(dataDir, 'avviso-agosto.pdf');
  await writeFile(notice, await makeNoticePdf({
    sentence: 'Le nuove tariffe si applicano con decorrenza dal 1° agosto 2026.',
    tables: [{ category: 'Sigari', withCode: true, rows: [
      ['20663', '2012 BY OSCAR VALLADARES COROJO ROBUSTO', 'da 20 pezzi', '2.400,00', '2.500,00', '250,00'],
      ['19784', 'ADVENTURA THE EXPLORER CORONA GORDA', 'da 19 pezzi', '2.100,00', '2.000,00', '190,00'],
    ] }],
  }));
  const july = join(dataDir, 'build', 'july');
  const august = join(dataDir, 'build', 'august');
  expect((await cli(['build', '--source', REAL_LIST, '--date', '2026-07-22', '--out', july])).status).toBe(0);
  expect((await cli(['publish', july])).status).toBe(0);
  const built = await cli(['build', '--source', REAL_LIST, '--source', notice, '--date', '2026-08-01', '--previous', july, '--out', august]);
  expect(built.stderr).toContain('changes since 20260722.1: 1 price rise(s), 1 price cut(s)');
  expect((await cli(['publish', august])).status).toBe(0);
}
