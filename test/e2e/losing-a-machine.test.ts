import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makePriceListPdf } from '../../fixtures/adm-pdf.ts';
import type { AuthorityServer } from '../helpers/authority-server.ts';
import { standInAuthoritySite } from '../helpers/authority-site.ts';
import { onDay, REPO, runCli } from '../helpers/run-cli.ts';
import { tempDir } from '../helpers/temp-dir.ts';

// The cron machine is lost with its data dir (its snapshots of the authority's documents among
// them), and the authority has taken its documents down: the bucket alone rebuilds every release.
let authority: AuthorityServer;

/** The authority publishes its cigarillos list again, at another price: a new release that day. */
async function republishCigarillos(perKg: string, perPack: string): Promise<void> {
  const body = await makePriceListPdf({
    category: 'Sigaretti',
    date: '1/11/2026',
    rows: [['93001', 'PICCOLO VANIGLIA', 'astuccio da 10 pezzi', perKg, perPack]],
  });
  authority.lists.set('/documents/6-LIST-01-11-2026.pdf', { body: Buffer.from(body), contentType: 'application/pdf', validators: true });
}
beforeAll(async () => {
  ({ authority } = await standInAuthoritySite());
});
afterAll(async () => {
  await authority.close();
});

describe('the machine that built the releases lost, and the authority’s documents gone', () => {
  it('a fresh data dir rebuilds every kept release byte for byte from the bucket alone, and the next run goes on', async () => {
    const bucket = join(await tempDir(), 'bucket');
    const release = (dataDir: string, date: string) =>
      runCli(['release', '--quiet', '--data-dir', dataDir, '--bucket', bucket], {
        env: { TARIFF_SOURCE_PAGES: `${authority.url('/prezzi')} ${authority.url('/novita')}`, ...onDay(date) },
      });
    const first = await tempDir();
    expect((await release(first, '2026-11-22')).stdout).toMatch(/^published 20261101\.1/);
    expect((await release(first, '2026-12-01')).stdout).toMatch(/^published 20261201\.1/);
    // The authority republishes a list that day with another price: a third release.
    await republishCigarillos('460,00', '4,60');
    expect((await release(first, '2026-12-01')).stdout).toMatch(/^published 20261201\.2/);
    const kept = readdirSync(join(bucket, 'sources'));
    expect(kept.length).toBeGreaterThan(8);

    // The machine is lost.
    rmSync(first, { recursive: true, force: true });
    const fresh = await tempDir();
    const documentsAsked = () => authority.requests.filter((request) => request.path.startsWith('/documents/')).length;
    const before = documentsAsked();
    for (const version of ['20261101.1', '20261201.1', '20261201.2']) {
      const rebuilt = await runCli(['verify', '--rebuild', version, '--bucket', bucket, '--data-dir', fresh]);
      expect(rebuilt.status, rebuilt.stderr).toBe(0);
      expect(rebuilt.stdout).toContain(`${version} matches its rebuild`);
      expect(rebuilt.stdout).toContain('from the bucket');
    }
    expect(documentsAsked(), 'nothing was fetched from the authority').toBe(before);
    expect((await runCli(['verify', '--bucket', bucket, '--data-dir', fresh])).status).toBe(0);

    // The next cron run on the new machine: the content is unchanged, nothing is published.
    const next = await runCli(['release', '--data-dir', fresh, '--bucket', bucket], {
      env: { TARIFF_SOURCE_PAGES: `${authority.url('/prezzi')} ${authority.url('/novita')}`, ...onDay('2026-12-01') },
    });
    expect(next.status, next.stderr).toBe(0);
    expect(next.stdout).toMatch(/^unchanged 20261201\.2/m);
  });

  it('keeps a document as long as a kept release or an import names it, and removes it with the last', async () => {
    const dataDir = await tempDir();
    const bucket = join(dataDir, 'bucket');
    // No retention: what a run marks, the next run deletes (deferred deletion, docs/architecture.md).
    const release = (date: string, keep = '1') =>
      runCli(['release', '--quiet', '--data-dir', dataDir], {
        env: {
          TARIFF_SOURCE_PAGES: `${authority.url('/prezzi')} ${authority.url('/novita')}`,
          TARIFF_KEEP: keep,
          TARIFF_RETENTION_HOURS: '0',
          ...onDay(date),
        },
      });
    /** Two runs with nothing new: the first deletes the releases marked and marks their documents, the second deletes those. */
    const settle = async () => {
      for (let run = 0; run < 2; run += 1) expect((await release('2026-12-01')).status).toBe(0);
    };
    await republishCigarillos('470,00', '4,70');
    expect((await release('2026-12-01')).status).toBe(0);
    const sources = () => readdirSync(join(bucket, 'sources')).sort();
    const firstSources = sources();
    await republishCigarillos('480,00', '4,80');
    // Keep 1: the first release is pruned, and the one document only it was built from goes with it.
    expect((await release('2026-12-01')).status).toBe(0);
    await settle();
    const secondSources = sources();
    expect(secondSources).toHaveLength(firstSources.length);
    expect(firstSources.filter((name) => !secondSources.includes(name))).toHaveLength(1);
    expect((await runCli(['verify', '--bucket', bucket, '--data-dir', dataDir])).status).toBe(0);

    // An archived list read into the history: kept while its import is, gone with it.
    const archived = join(REPO, 'fixtures/adm/listino-sigari-2023-10-31.pdf');
    expect((await runCli(['history', 'import', archived, '--data-dir', dataDir])).status).toBe(0);
    expect(sources()).toHaveLength(secondSources.length + 1);
    const removed = await runCli(['history', 'remove', 'listino-sigari-2023-10-31.pdf', '--apply', '--data-dir', dataDir]);
    expect(removed.status, removed.stderr).toBe(0);
    // Marked by the removal, deleted by the next run.
    expect(sources()).toHaveLength(secondSources.length + 1);
    await settle();
    expect(sources()).toEqual(secondSources);
  });
});
