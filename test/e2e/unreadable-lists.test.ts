import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuthorityServer } from '../helpers/authority-server.ts';
import { releaseFromSite, standInAuthoritySite } from '../helpers/authority-site.ts';
import { REPO } from '../helpers/run-cli.ts';
import { tempDir } from '../helpers/temp-dir.ts';

// The cigar list as the authority's server might send it one day: cut short at a third.
const CIGARS = '/documents/2-LIST-22-07-2026.pdf';
const REAL_CIGARS = readFileSync(join(REPO, 'fixtures/adm/listino-sigari-2026-07-22.pdf'));
const CUT = REAL_CIGARS.subarray(0, Math.floor(REAL_CIGARS.length / 3));

let authority: AuthorityServer;

beforeAll(async () => {
  ({ authority } = await standInAuthoritySite());
});
afterAll(async () => {
  await authority.close();
});

const serveCigars = (body: Buffer) => authority.lists.set(CIGARS, { body, contentType: 'application/pdf', validators: true });

describe('a list that does not read', () => {
  it('of a required category with no earlier list: the first release publishes nothing, naming the list and why', async () => {
    serveCigars(CUT);
    const dataDir = await tempDir();
    const run = await releaseFromSite(authority, dataDir, '2026-11-30');
    expect(run.status).toBe(1);
    const { error } = JSON.parse(run.stdout);
    expect(error.code).toBe('required_list_unreadable');
    expect(error.message).toMatch(/^Nothing was published: the cigars list could not be read and no earlier one is kept/);
    expect(error.message).toContain(`${authority.url(CIGARS)}: the PDF is damaged: it does not end as a PDF ends`);
    expect(existsSync(join(dataDir, 'bucket', 'current.json'))).toBe(false);
    expect(existsSync(join(dataDir, 'bucket', 'releases'))).toBe(false);

    // The list read again whole: the next run publishes every list.
    serveCigars(REAL_CIGARS);
    const next = await releaseFromSite(authority, dataDir, '2026-11-30');
    expect(next.status, next.stderr).toBe(0);
    expect(JSON.parse(next.stdout)).toMatchObject({ status: 'published', version: '20261101.1' });
  });

  it('of a category not required, against a release that has it: the shrink refused names the list, never --allow-shrink', async () => {
    serveCigars(REAL_CIGARS);
    const dataDir = await tempDir();
    expect((await releaseFromSite(authority, dataDir, '2026-11-30')).status).toBe(0);
    // A candidate pipeline's fresh data dir against the same bucket: no snapshot of the cigar list to fall back on.
    serveCigars(CUT);
    const candidate = await tempDir();
    const run = await releaseFromSite(authority, candidate, '2026-11-30', ['--bucket', join(dataDir, 'bucket'), '--dry-run'], {
      TARIFF_CATEGORIES: 'cigarettes rolling_tobacco',
    });
    expect(run.status).toBe(1);
    const { error } = JSON.parse(run.stdout);
    expect(error.code).toBe('shrink_refused');
    expect(error.message).toMatch(/^The new tariff drops \d+ of the \d+ (cigars )?products/);
    expect(error.message).toContain(
      `a document of the authority could not be read in this run:\n  - ${authority.url(CIGARS)}: the PDF is damaged`,
    );
    expect(error.hint).not.toContain('--allow-shrink');
    expect(error.hint).toMatch(/^Do not allow this drop: it comes from the lists that failed in this run/);
  });
});
