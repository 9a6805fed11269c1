import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO, runCli } from '../helpers/run-cli.ts';
import { tempDir } from '../helpers/temp-dir.ts';

// A command's scratch files go to TMPDIR (else /tmp). A temporary folder that cannot take them is
// an operator's to fix: the message names it and what to do (docs/deployment.md), never "internal error".
describe('a temporary folder that cannot take scratch files', () => {
  for (const [what, tmp] of [
    ['missing', (dir: string) => join(dir, 'no-such-folder')],
    [
      'a file',
      (dir: string) => {
        writeFileSync(join(dir, 'a-file'), '');
        return join(dir, 'a-file');
      },
    ],
  ] as const)
    it(`TMPDIR ${what}: build and inspect exit 1 naming it and TMPDIR`, async () => {
      const dir = await tempDir();
      const TMPDIR = tmp(dir);
      for (const args of [
        ['build', '--source', join(REPO, 'fixtures/sample/tariff'), '--out', join(dir, 'out'), '--data-dir', dir],
        ['inspect', join(REPO, 'fixtures/adm/listino-liquidi-2026-11-01.pdf')],
      ]) {
        const result = await runCli(args, { env: { TMPDIR }, process: true });
        expect(result.status, result.stderr).toBe(1);
        expect(result.stderr).toContain(`cannot make a scratch folder in the temporary folder: ${TMPDIR}`);
        expect(result.stderr).toContain('Set TMPDIR to a folder this user can write');
        expect(result.stderr).not.toMatch(/internal error|bug/i);
      }
    });
});
