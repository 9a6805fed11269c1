import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { feed } from '../helpers/feed.ts';
import { REPO, runCli } from '../helpers/run-cli.ts';
import { serveInProcess } from '../helpers/serve-in-process.ts';
import type { RunningServe } from '../helpers/serve-process.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import { waitFor } from '../helpers/wait-for.ts';
import { bucketKeyPath } from '../helpers/bucket-folder.ts';

let service: RunningServe | null = null;
afterEach(async () => {
  await service?.stop();
  service = null;
});

/**
 * A page that must answer while a read of the bucket hangs: a guard against a request that waits
 * on it (it would wait for good), not a speed claim.
 */
const page = (url: string) => fetch(url, { signal: AbortSignal.timeout(10_000) });

describe('requests never wait on a read of the bucket', () => {
  it('answers product pages from the last index while the history cannot be read, says stale in /healthz, and takes the history once it reads', async () => {
    const dataDir = await tempDir();
    const cli = (args: string[]) => runCli([...args, '--data-dir', dataDir]);
    const out = join(dataDir, 'build');
    expect((await cli(['build', '--source', join(REPO, 'fixtures/sample/tariff'), '--date', '2026-11-22', '--out', out])).status).toBe(0);
    expect((await cli(['publish', out])).status).toBe(0);
    let clock = Date.parse('2026-11-22T10:00:00Z');
    service = await serveInProcess(dataDir, { TARIFF_MANIFEST_POLL_MS: '100' }, { now: () => new Date(clock) });
    const product = `${service.url}/prodotti/1001`;
    expect((await page(product)).status).toBe(200);

    // The history's manifest becomes a FIFO: a plain read of it would block for good.
    const manifest = bucketKeyPath(join(dataDir, 'bucket'), 'history/manifest.json');
    const saved = readFileSync(manifest);
    rmSync(manifest);
    execFileSync('mkfifo', [manifest]);
    clock += 61_000;
    for (let i = 0; i < 20; i += 1) expect((await page(product)).status).toBe(200);
    expect((await page(`${service.url}/healthz`)).status).toBe(200);
    clock += 601_000;
    const stale = await page(`${service.url}/healthz`);
    expect(stale.status).toBe(503);
    expect((await stale.json()).background).toContainEqual(
      expect.objectContaining({ read: 'history', stale: true, problem: expect.stringContaining('is a FIFO, not an object') }),
    );
    expect((await page(product)).status).toBe(200);

    // Readable again, with an older list imported: the next page due shows it.
    rmSync(manifest);
    writeFileSync(manifest, saved);
    const older = join(dataDir, 'sigarette-2025.xml');
    writeFileSync(older, feed('01/01/2025', { sigarette: [['1001', 'AURORA ROSSA', 'astuccio da 20 pezzi', '280,00', '5,60']] }));
    expect((await cli(['history', 'import', older])).status).toBe(0);
    clock += 61_000;
    // The page due starts the history's read in the background (it never waits on it): a later page shows it.
    await waitFor(async () => (await (await page(product)).text()).includes('5,60'), 'a page to show the imported price', 15_000);
    const healthy = await (await page(`${service.url}/healthz`)).json();
    expect(healthy.background).toContainEqual(expect.objectContaining({ read: 'history', stale: false, problem: null }));
  });
});
