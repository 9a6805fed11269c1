import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeSlowPdf } from '../../fixtures/adm-pdf.ts';
import { thisProcess } from '../../src/util/process-identity.ts';
import { CLI, REPO, runCliProcess } from '../helpers/run-cli.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import { waitFor } from '../helpers/wait-for.ts';

describe("the PDF reader's private copy of a document", () => {
  it('left by a command killed outright (SIGKILL) is removed by the next command that reads a PDF; a live command’s is not', async () => {
    const tmp = await tempDir();
    const dir = await tempDir();
    writeFileSync(join(dir, 'slow.pdf'), makeSlowPdf());
    // A folder of a command still running (this test's process): it stays.
    mkdirSync(join(tmp, 'tariff-pdf-live'), { mode: 0o700 });
    writeFileSync(join(tmp, 'tariff-pdf-live', 'holder.json'), JSON.stringify(thisProcess()));
    const child = spawn(process.execPath, [CLI, 'build', '--source', join(dir, 'slow.pdf'), '--out', join(dir, 'out'), '--data-dir', dir], {
      stdio: 'ignore',
      env: { ...process.env, TMPDIR: tmp },
    });
    const copies = () => readdirSync(tmp).filter((name) => name.startsWith('tariff-pdf-') && name !== 'tariff-pdf-live');
    await waitFor(async () => copies().some((name) => existsSync(join(tmp, name, 'document.pdf'))), 'the command to write its copy');
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    const left = copies();
    expect(left).toHaveLength(1);

    const next = await runCliProcess(['inspect', join(REPO, 'fixtures/adm/listino-trinciati-2023-05-17.pdf'), '--no-rows'], {
      env: { TMPDIR: tmp },
    });
    expect(next.status, next.stderr).toBe(0);
    expect(copies()).toEqual([]);
    expect(existsSync(join(tmp, 'tariff-pdf-live', 'holder.json'))).toBe(true);
  });
});
