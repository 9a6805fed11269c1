import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO, runCli } from '../helpers/run-cli.ts';
import { tempDir } from '../helpers/temp-dir.ts';

// A release built in one CI job (or on one machine) and published from another data dir, as a
// publish job taking the candidate's artifact does: the folder carries the documents it was built
// from, so the bucket keeps them and rebuilds the release; without them, nothing is published unasked.
const LIST = join(REPO, 'fixtures/adm/listino-liquidi-2026-11-01.pdf');

async function candidate() {
  const out = join(await tempDir(), 'release');
  const built = await runCli(['build', '--source', LIST, '--date', '2026-11-22', '--out', out, '--data-dir', await tempDir()]);
  expect(built.status, built.stderr).toBe(0);
  return out;
}

describe('a release folder that carries what it was built from', () => {
  it('published from another data dir, the bucket keeps its documents: verify --bucket passes and --rebuild matches', async () => {
    const out = await candidate();
    expect(readdirSync(join(out, 'sources'))).toHaveLength(1);
    expect((await runCli(['verify', out])).status, 'a folder with its sources still verifies').toBe(0);
    const bucket = join(await tempDir(), 'bucket');
    const publisher = ['--bucket', bucket, '--data-dir', await tempDir()];
    const published = await runCli(['publish', out, ...publisher]);
    expect(published.status, published.stderr).toBe(0);
    expect(published.stderr).not.toContain('not at hand');
    expect((await runCli(['verify', '--bucket', bucket, '--data-dir', await tempDir()])).status).toBe(0);
    const rebuilt = await runCli(['verify', '--rebuild', published.stdout.trim(), '--bucket', bucket, '--data-dir', await tempDir()]);
    expect(rebuilt.status, rebuilt.stderr).toBe(0);
    expect(rebuilt.stdout).toContain('from the bucket');
  });

  it('without its documents, publish is refused unless --without-sources; verify --bucket then says so, a warning it can accept', async () => {
    const out = await candidate();
    rmSync(join(out, 'sources'), { recursive: true });
    const bucket = join(await tempDir(), 'bucket');
    const publisher = ['--bucket', bucket, '--data-dir', await tempDir()];
    const refused = await runCli(['publish', out, ...publisher]);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain('listino-liquidi-2026-11-01.pdf');
    expect(refused.stderr).toContain('not at hand here');
    expect(existsSync(join(bucket, 'current.json.gen')) || existsSync(join(bucket, 'current.json'))).toBe(false);
    expect((await runCli(['publish', out, ...publisher, '--without-sources'])).status).toBe(0);
    const verified = await runCli(['verify', '--bucket', bucket, '--data-dir', await tempDir()]);
    expect(verified.status).toBe(1);
    expect(verified.stdout + verified.stderr).toContain('which it does not keep whole');
    const accepted = await runCli(['verify', '--bucket', bucket, '--accept-missing-sources', '--data-dir', await tempDir()]);
    expect(accepted.status, accepted.stderr).toBe(0);
    expect(accepted.stderr).toContain('accepted: --accept-missing-sources');
  });

  it('verify --rebuild <folder> rebuilds it from the documents it carries, and names a file that is not what they give', async () => {
    const out = await candidate();
    const bucket = ['--bucket', join(await tempDir(), 'bucket'), '--data-dir', await tempDir()];
    const rebuilt = await runCli(['verify', '--rebuild', out, ...bucket]);
    expect(rebuilt.status, rebuilt.stderr).toBe(0);
    expect(rebuilt.stdout).toMatch(
      /\(\d{8}\.\d+\) matches its rebuild: 1 document\(s\) from the folder's sources\/ give the same three files/,
    );
    // A release whose file is not what its documents give (its manifest made to name other bytes).
    const manifestPath = join(out, 'manifest.json');
    const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
    manifest.files.json.sha256 = '0'.repeat(64);
    writeFileSync(manifestPath, JSON.stringify(manifest));
    const differs = await runCli(['verify', '--rebuild', out, ...bucket]);
    expect(differs.status).toBe(1);
    expect(differs.stderr).toContain('dataset.json.gz: the rebuild gives');
    expect(differs.stderr).toContain(`${manifestPath} says`);
    expect((await runCli(['verify', '--rebuild', join(out, 'nothing-here'), ...bucket])).status).toBe(2);
  });
});
