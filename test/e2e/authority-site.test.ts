import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Product } from '../../src/dataset/model.ts';
import { openDatasetFile } from '../../src/release/read-release.ts';
import type { AuthorityServer } from '../helpers/authority-server.ts';
import { releaseFromSite, standInAuthoritySite } from '../helpers/authority-site.ts';
import { tempDir } from '../helpers/temp-dir.ts';

let authority: AuthorityServer;
let dataDir: string;
let expectedCount: number;

beforeAll(async () => {
  dataDir = await tempDir();
  ({ authority, expectedCount } = await standInAuthoritySite());
});
afterAll(async () => {
  await authority.close();
});

const release = (date: string) => releaseFromSite(authority, dataDir, date);
const products = async (version: string): Promise<Map<number, Product>> => {
  const dataset = await openDatasetFile('json', readFileSync(join(dataDir, 'bucket', 'releases', version, 'dataset.json.gz')));
  return new Map(dataset.products.map((p) => [p.admCode, p]));
};

describe("tariff release on the authority's site, whose links are file names", () => {
  it('publishes every list whole, Campione nowhere, and the undated preview only from the day its news item states', async () => {
    const before = await release('2026-11-30');
    expect(before.stderr).toBe('');
    expect(before.status).toBe(0);
    const summary = JSON.parse(before.stdout);
    expect(summary).toMatchObject({ status: 'published', version: '20261101.1', duplicates: [] });
    const byUrl = (file: string) => summary.fetch.find((r: { url: string }) => r.url.endsWith(`/documents/${file}`));
    expect(byUrl('2-LIST-22-07-2026.pdf')).toMatchObject({ label: 'cigars list', status: 'changed' });
    expect(byUrl('5-LIST-27-10-2023.pdf')).toMatchObject({ label: 'heated_tobacco list', status: 'changed' });
    // Campione's list is an expected part of the page: said, never a failure.
    expect(byUrl('CDI+SIGARI.pdf')).toMatchObject({
      status: 'ignored',
      error: expect.stringMatching(/Campione d'Italia list \(Sigari, 2026-04-03\)/),
    });
    expect(byUrl('1-ANTEPRIMA.pdf')).toMatchObject({ label: 'notice', effectiveDates: [{ date: '2026-12-01', when: 'future' }] });

    const first = await products('20261101.1');
    expect(first.size).toBe(expectedCount);
    // National prices everywhere: Campione's 30,00 for TOSCANO T is in no release.
    expect(first.get(21825)).toMatchObject({ pricePerPackCents: 4500, pricePerKgCents: 150000, referenceUnit: 'conventional_kg' });
    expect(first.get(7)).toMatchObject({ pricePerPackCents: 480, effectiveFrom: '2023-10-10' });
    // Heated tobacco is priced per 1,000 pieces, never per kilogram.
    expect(first.get(20697)).toMatchObject({ referencePriceCents: 22500, referenceUnit: '1000_pieces', pricePerKgCents: null });

    const onTheDay = await release('2026-12-01');
    expect(onTheDay.status).toBe(0);
    expect(JSON.parse(onTheDay.stdout)).toMatchObject({ status: 'published', version: '20261201.1' });
    const second = await products('20261201.1');
    expect(second.size).toBe(expectedCount);
    expect(second.get(7)).toMatchObject({ pricePerPackCents: 500, referencePriceCents: 25000, effectiveFrom: '2026-12-01' });
    expect(second.get(21825)).toMatchObject({ pricePerPackCents: 4800, pricePerKgCents: 160000, effectiveFrom: '2026-12-01' });
    // Every unchanged document cost a conditional request.
    const documents = authority.requests.filter((r) => r.path.startsWith('/documents/'));
    expect(documents.slice(-9).every((r) => r.headers['if-none-match'])).toBe(true);
  });
});
