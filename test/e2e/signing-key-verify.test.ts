import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { onDay, REPO, runCli } from '../helpers/run-cli.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const CIGARETTES = join(REPO, 'fixtures/sample/tariff/sigarette-2026-11-01.xml');
const DAY = onDay('2026-11-22');

describe('tariff verify --bucket right after signing-key create', () => {
  it('exits 0 with a note naming the key and the run that will sign with it; once signed, says nothing of it', async () => {
    const dataDir = await tempDir();
    const cli = (args: string[], extra: Record<string, string> = {}) =>
      runCli([...args, '--data-dir', dataDir], { env: { ...DAY, ...extra } });
    const build = join(dataDir, 'build');
    expect((await cli(['build', '--source', CIGARETTES, '--date', '2026-11-22', '--out', build])).status).toBe(0);
    expect((await cli(['publish', build])).status).toBe(0);
    const created = JSON.parse((await cli(['signing-key', 'create', '--json'])).stdout) as { keyId: string; file: string };
    const verified = await cli(['verify', '--bucket', join(dataDir, 'bucket')]);
    expect(verified.status, verified.stderr).toBe(0);
    expect(verified.stdout).toContain(
      `note: folder ${join(dataDir, 'bucket')}/current.json is not signed yet: keys.json lists ${created.keyId} in use`,
    );
    expect(verified.stdout).toContain('the next `tariff release` (or `tariff publish`) with TARIFF_SIGNING_KEY set signs it');
    const json = JSON.parse((await cli(['verify', '--bucket', join(dataDir, 'bucket'), '--json'])).stdout) as {
      ok: boolean;
      notes: string[];
    };
    expect(json).toMatchObject({ ok: true, notes: [expect.stringContaining(created.keyId)] });
    // The next signed run signs the current manifest: nothing left to note.
    expect((await cli(['publish', build], { TARIFF_SIGNING_KEY: created.file })).status).toBe(0);
    const signed = await cli(['verify', '--bucket', join(dataDir, 'bucket')]);
    expect(signed.status, signed.stderr).toBe(0);
    expect(signed.stdout).not.toContain('note:');
  });
});
