import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { readSources } from '../../src/fetch/read-sources.ts';
import { runRelease } from '../../src/pipeline/run-release.ts';
import { resolveSettings } from '../../src/config/resolve-settings.ts';
import { REPO, runCli } from '../helpers/run-cli.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import { readBucketKey } from '../helpers/bucket-folder.ts';

const BUNDLED = join(REPO, 'fixtures/adm');

describe('the public manifest names no folder of the builder', () => {
  it('documents read from files are named by file name, with SHA-256 and size; build and the start pipeline alike', async () => {
    const dataDir = await tempDir();
    const out = join(dataDir, 'build');
    expect((await runCli(['build', '--source', BUNDLED, '--date', '2026-11-22', '--out', out, '--data-dir', dataDir])).status).toBe(0);
    const built = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'));
    expect(built.provenance.documents.length).toBeGreaterThan(3);
    for (const doc of built.provenance.documents) {
      expect(doc.url).not.toContain('/');
      expect(doc.url).not.toContain(REPO);
    }
    expect(readFileSync(join(out, 'manifest.json'), 'utf8')).not.toContain(REPO);
    // Nor the rows: a price a notice announces names its notice by file name too.
    const rows = gunzipSync(readFileSync(join(out, 'dataset.json.gz'))).toString();
    expect(rows).toContain('"source":"avviso-prezzi-2026-12-01.pdf"');
    expect(rows).not.toContain(REPO);
  });

  it('a release of the bundled lists (`tariff start`) is rebuilt byte for byte, its documents found by digest', async () => {
    const dataDir = await tempDir();
    const { settings } = await resolveSettings({ dataDir, env: {}, flags: {} });
    const summary = await runRelease({
      settings,
      dataDir,
      env: {},
      now: () => new Date('2026-11-22T11:00:00Z'),
      date: '2026-11-22',
      allowOtherDate: true,
      allowShrink: false,
      documents: async () => ({ documents: await readSources([BUNDLED], settings), reports: [] }),
      report: () => {},
      warn: () => {},
    });
    expect(summary.status).toBe('published');
    const manifest = readBucketKey(join(dataDir, 'bucket'), 'current.json')!.toString('utf8');
    expect(manifest).not.toContain(REPO);
    const rebuilt = await runCli(['verify', '--rebuild', summary.version, '--data-dir', dataDir]);
    expect(rebuilt.stderr).toBe('');
    expect(rebuilt.stdout).toContain(`${summary.version} matches its rebuild`);
  });
});
