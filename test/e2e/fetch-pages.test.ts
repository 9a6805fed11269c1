import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeNoticePdf, makePriceListPdf, type ListRow } from '../../fixtures/adm-pdf.ts';
import { openDatasetFile } from '../../src/release/read-release.ts';
import { AuthorityServer } from '../helpers/authority-server.ts';
import { onDay, REPO, runCli } from '../helpers/run-cli.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import { readBucketJson, readBucketKey } from '../helpers/bucket-folder.ts';

// The stand-in's price page has the shape of the authority's (fixtures/adm/prezzi_pubblico.html):
// one link per category, to an address ending in a document id that changes with every update.
const PRICE_PAGE = readFileSync(join(REPO, 'fixtures/adm/prezzi_pubblico.html'), 'utf8');
const NOTICES_PAGE = readFileSync(join(REPO, 'fixtures/adm/novita_accise.html'), 'utf8');
const FAST = { TARIFF_FETCH_RETRY_BASE_MS: '20', TARIFF_FETCH_ATTEMPTS: '2', TARIFF_FETCH_BODY_TIMEOUT_MS: '2000' };

const ROWS: Record<string, [string, ListRow[]]> = {
  'Sigarette.pdf': [
    'Sigarette',
    [
      ['91001', 'AURORA ROSSA', 'astuccio da 20 pezzi', '300,00', '6,00'],
      ['91002', 'AURORA ROSSA', 'cartoccio da 10 pezzi', '300,00', '3,00'],
    ],
  ],
  'Sigari.pdf': [
    'Sigari',
    [
      ['21825', 'TOSCANO T', 'da 6 sigari', '1.500,00', '45,00'],
      ['684', 'AMMEZZATI TOSCANO GARIBALDI', 'da 5 pezzi', '192,00', '4,80'],
    ],
  ],
  'Sigaretti.pdf': ['Sigaretti', [['93001', 'PICCOLO VANIGLIA', 'astuccio da 10 pezzi', '450,00', '4,50']]],
  'Trinciati.pdf': ['Trinciati per sigarette', [['94001', 'GOLDEN VALLEY ROLLING', 'busta da 30 grammi', '250,00', '7,50']]],
  'Altri+tabacchi.pdf': ['Altri tabacchi da fumo', [['95001', 'CAPITANO PIPA AROMATICO', 'busta da 50 grammi', '220,00', '11,00']]],
  'Fiuto+e+mastico.pdf': ['Fiuto e mastico', [['96001', 'NASO FINO SNUFF', 'scatoletta da 10 grammi', '500,00', '5,00']]],
  'Prodotti+da+inalazione.pdf': [
    'Prodotti da inalazione senza combustione',
    [['97001', 'STICK TERMICO AMBRA', 'astuccio da 20 pezzi', '210,00', '5,00']],
  ],
  'Liquidi.pdf': ['Liquidi da inalazione', [['98001', 'NUVOLA MENTA 10 MG', 'flacone da 10 ml', '600,00', '6,00']]],
};

let authority: AuthorityServer;
let dataDir: string;
let bucket: string;

/** Serves the page and every list at the address the page links it from, as the authority would. */
async function publishLists(html: string, date = '01/11/2026', override: Record<string, Uint8Array> = {}) {
  authority.lists.set('/prezzi', { body: html, contentType: 'text/html; charset=utf-8' });
  for (const [file, [category, rows]] of Object.entries(ROWS)) {
    const href = new RegExp(`href="(/portale/documents/[^"]*/${file.replace(/\+/g, '\\+')}/[^"]+)"`).exec(html)?.[1];
    if (!href) continue;
    authority.lists.set(decodeURIComponent(href), {
      body: Buffer.from(override[file] ?? (await makePriceListPdf({ category, date: category === 'Sigari' ? '22/07/2026' : date, rows }))),
      contentType: 'application/pdf',
    });
  }
}

/** The same page after an update: every document has a new id at the end of its address. */
const republished = (html: string, generation: number) =>
  html.replace(
    /(\/portale\/documents\/[^"]+\/)([0-9a-f-]{36})"/g,
    (_, head: string, id: string) => `${head}${id.slice(0, 34)}${String(generation).padStart(2, '0')}"`,
  );

beforeEach(async () => {
  authority = await new AuthorityServer().start();
  dataDir = await tempDir();
  bucket = join(dataDir, 'bucket');
  await publishLists(PRICE_PAGE);
  authority.lists.set('/novita', { body: NOTICES_PAGE, contentType: 'text/html' });
  authority.lists.set(decodeURIComponent(/href="([^"]*Variazione[^"]*)"/.exec(NOTICES_PAGE)![1]!), {
    contentType: 'application/pdf',
    body: Buffer.from(
      await makeNoticePdf({
        sentence: 'con decorrenza dal 1° dicembre 2026',
        tables: [{ category: 'Sigari', withCode: false, rows: [[null, 'TOSCANO T', 'da 6 sigari', '1.500,00', '1.600,00', '48,00']] }],
      }),
    ),
  });
  authority.lists.set(decodeURIComponent(/href="([^"]*Circolare[^"]*)"/.exec(NOTICES_PAGE)![1]!), {
    body: '<html>circolare</html>',
    contentType: 'text/html',
  });
});
afterEach(async () => {
  await authority.close();
});

const runRelease = (date: string, args: string[], env: Record<string, string> = {}) =>
  runCli(['release', '--data-dir', dataDir, '--bucket', bucket, ...args], {
    env: { ...FAST, TARIFF_SOURCE_PAGES: `${authority.url('/prezzi')} ${authority.url('/novita')}`, ...onDay(date), ...env },
  });
const release = (date: string, extra: string[] = [], env: Record<string, string> = {}) => runRelease(date, ['--json', ...extra], env);
/** The seven categories of the real lists and the liquids: every category the builder knows. */
const EVERY_CATEGORY = {
  TARIFF_CATEGORIES:
    'cigarettes cigars cigarillos rolling_tobacco other_smoking_tobacco snuff_chewing_tobacco heated_tobacco inhalation_liquids',
};
const WITHOUT_LIQUIDS = () => PRICE_PAGE.replace(/<li><a [^>]*>Liquidi da inalazione<\/a><\/li>/, '');
const current = () => readBucketJson(bucket, 'current.json');
const products = async () =>
  (await openDatasetFile('json', readFileSync(join(bucket, 'releases', current().version, 'dataset.json.gz')))).products;

describe("tariff release through the authority's pages", () => {
  it('finds every category list and the notices on the pages, publishes, and applies the notice on its day', async () => {
    const first = await release('2026-11-22');
    expect(first.status).toBe(0);
    const summary = JSON.parse(first.stdout);
    expect(summary).toMatchObject({ status: 'published', version: '20261101.1' });
    expect(summary.fetch.filter((r: { label: string }) => r.label.endsWith(' list')).map((r: { status: string }) => r.status)).toEqual(
      Array(8).fill('changed'),
    );
    expect(summary.fetch.find((r: { label: string }) => r.label === 'notice')).toMatchObject({
      status: 'changed',
      effectiveDates: [{ date: '2026-12-01', when: 'future' }],
    });
    expect(current().counts.products).toBe(10);

    // Nothing changed: every document answers 304 and nothing is published.
    const again = await release('2026-11-22');
    expect(JSON.parse(again.stdout)).toMatchObject({ status: 'unchanged', version: '20261101.1' });
    const requestsBefore = authority.requests.length;
    await release('2026-11-22');
    // Every document the site serves is asked for conditionally (the minimum-price table's link is broken: never cached).
    const conditional = authority.requests
      .slice(requestsBefore)
      .filter((r) => r.path.startsWith('/portale/documents/') && !r.path.includes('Tabella'));
    expect(conditional.length).toBeGreaterThan(0);
    expect(conditional.every((r) => r.headers['if-none-match'])).toBe(true);

    // The notice's day: the new prices, dated from it, in a release of that date.
    expect(JSON.parse((await release('2026-11-30')).stdout).status).toBe('unchanged');
    const onTheDay = await release('2026-12-01');
    expect(JSON.parse(onTheDay.stdout)).toMatchObject({ status: 'published', version: '20261201.1' });
    // Dated against the day the run builds for: on its own day a notice is today's, not the future's.
    expect(JSON.parse(onTheDay.stdout).fetch.find((r: { label: string }) => r.label === 'notice')).toMatchObject({
      effectiveDates: [{ date: '2026-12-01', when: 'today' }],
    });
    expect((await products()).find((p) => p.admCode === 21825)).toMatchObject({
      pricePerPackCents: 4800,
      pricePerKgCents: 160000,
      effectiveFrom: '2026-12-01',
    });
  });

  it('tracks the lists the site links again when its record of them was lost', async () => {
    expect((await release('2026-11-22')).status).toBe(0);
    rmSync(join(dataDir, 'documents.json'));
    const again = await release('2026-11-22');
    expect(again.status).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ status: 'unchanged', version: '20261101.1' });
    expect(Object.keys(JSON.parse(readFileSync(join(dataDir, 'documents.json'), 'utf8')).lists)).toHaveLength(8);
  });

  it('follows the lists to their new addresses after an update', async () => {
    expect((await release('2026-11-22')).status).toBe(0);
    const updated = republished(PRICE_PAGE, 2);
    const rows = ROWS['Sigarette.pdf']![1].map((row): ListRow =>
      row[0] === '91001' ? ([...row.slice(0, 3), '310,00', '6,20'] as ListRow) : row,
    );
    await publishLists(updated, '01/11/2026', {
      'Sigarette.pdf': await makePriceListPdf({ category: 'Sigarette', date: '15/11/2026', rows }),
    });
    const second = await release('2026-11-22');
    expect(second.status).toBe(0);
    const summary = JSON.parse(second.stdout);
    expect(summary).toMatchObject({ status: 'published', version: '20261115.1' });
    const byLabel = Object.fromEntries(summary.fetch.map((r: { label: string; status: string }) => [r.label, r.status]));
    expect(byLabel['cigarettes list']).toBe('changed');
    // Same content at a new address: no change.
    expect(byLabel['cigars list']).toBe('unchanged');
    expect((await products()).find((p) => p.admCode === 91001)).toMatchObject({ pricePerPackCents: 620, effectiveFrom: '2026-11-15' });
    expect(authority.requests.some((r) => r.path.endsWith('02') && r.path.includes('Sigarette.pdf'))).toBe(true);
  });

  it('lets the snapshot of a list the site no longer links go once no kept release names it', async () => {
    expect((await release('2026-11-22', ['--keep', '1'])).status).toBe(0);
    const sources = () => JSON.parse(readFileSync(join(dataDir, 'sources.json'), 'utf8')) as Record<string, { sha256: string }>;
    const oldCigarettes = Object.entries(sources()).find(([url]) => url.includes('Sigarette.pdf'))!;
    const rows = ROWS['Sigarette.pdf']![1].map((row): ListRow =>
      row[0] === '91001' ? ([...row.slice(0, 3), '310,00', '6,20'] as ListRow) : row,
    );
    await publishLists(republished(PRICE_PAGE, 2), '01/11/2026', {
      'Sigarette.pdf': await makePriceListPdf({ category: 'Sigarette', date: '15/11/2026', rows }),
    });
    expect(JSON.parse((await release('2026-11-22', ['--keep', '1'])).stdout)).toMatchObject({ status: 'published', version: '20261115.1' });
    // Its old address is still on record, its snapshot gone: only a kept release or the lists in force keep one.
    expect(sources()[oldCigarettes[0]]).toBeDefined();
    const snapshots = readdirSync(join(dataDir, 'snapshots'));
    expect(snapshots.some((name) => name.startsWith(oldCigarettes[1].sha256))).toBe(false);
    expect(snapshots.filter((name) => name.endsWith('.pdf')).length).toBeGreaterThan(0);
    // The next run reads the site as it is and has nothing to do; the release kept rebuilds from what stays.
    expect(JSON.parse((await release('2026-11-23', ['--keep', '1'])).stdout)).toMatchObject({ status: 'unchanged' });
    expect((await runCli(['verify', '--rebuild', '20261115.1', '--data-dir', dataDir, '--bucket', bucket])).status).toBe(0);
  });

  it('never lets a list dated in the future take its category out of a release', async () => {
    expect((await release('2026-11-22')).status).toBe(0);
    // The authority replaces the cigarette list with next month's, a week ahead, at a new address.
    const updated = republished(PRICE_PAGE, 3);
    await publishLists(updated, '01/11/2026', {
      'Sigarette.pdf': await makePriceListPdf({
        category: 'Sigarette',
        date: '01/12/2026',
        rows: [
          ['91001', 'AURORA ROSSA', 'astuccio da 20 pezzi', '320,00', '6,40'],
          ['91002', 'AURORA ROSSA', 'cartoccio da 10 pezzi', '320,00', '3,20'],
        ],
      }),
    });
    const waiting = await release('2026-11-24');
    expect(waiting.status).toBe(0);
    expect(JSON.parse(waiting.stdout)).toMatchObject({ status: 'unchanged', version: '20261101.1' });
    expect((await products()).filter((p) => p.category === 'cigarettes')).toHaveLength(2);
    // The old list's address is gone from the site; its snapshot is still what is in force.
    expect(
      JSON.parse(readFileSync(join(dataDir, 'documents.json'), 'utf8')).lists.sigarette.map(
        (d: { effectiveFrom: string }) => d.effectiveFrom,
      ),
    ).toEqual(['2026-11-01', '2026-12-01']);

    const onTheDay = await release('2026-12-01');
    expect(JSON.parse(onTheDay.stdout)).toMatchObject({ status: 'published', version: '20261201.1' });
    expect((await products()).filter((p) => p.category === 'cigarettes').map((p) => [p.admCode, p.pricePerPackCents])).toEqual([
      [91001, 640],
      [91002, 320],
    ]);
  });

  it('publishes the seven categories of the real lists from a page that links no liquids, and says which lists it found', async () => {
    await publishLists(WITHOUT_LIQUIDS());
    const dry = await runRelease('2026-11-22', ['--dry-run']);
    expect(dry.status).toBe(0);
    expect(dry.stderr).toContain(
      'tariff: fetch: lists found: cigarettes, cigars, cigarillos, rolling_tobacco, other_smoking_tobacco, snuff_chewing_tobacco, heated_tobacco; not found: inhalation_liquids (not required)\n',
    );
    const result = await release('2026-11-22');
    expect(result.status).toBe(0);
    const summary = JSON.parse(result.stdout);
    expect(summary).toMatchObject({ status: 'published', failures: [], categories: { missing: ['inhalation_liquids'] } });
    expect(summary.categories.required).not.toContain('inhalation_liquids');
    expect(new Set((await products()).map((p) => p.category)).size).toBe(7);

    // Named in the setting, the liquids are required again: the same run fails, naming them.
    const named = await release('2026-11-22', [], EVERY_CATEGORY);
    expect(named.status).toBe(1);
    // (The broken link to the minimum-price table might have been that list: it is a failure too, now.)
    expect(JSON.parse(named.stdout).failures).toContainEqual({
      label: 'inhalation_liquids list',
      url: '',
      error: expect.stringMatching(/is the inhalation_liquids list; its last snapshot stays in use/),
    });
    const human = await runRelease('2026-11-22', ['--quiet'], EVERY_CATEGORY);
    expect(human.stderr).toMatch(/^tariff: unchanged 20261101\.1, but 2 lists failed: .*inhalation_liquids \(none of the /m);
  });

  it('refuses a category setting that names no category', async () => {
    const result = await release('2026-11-22', [], { TARIFF_CATEGORIES: 'cigarettes, liquids' });
    expect(result.status).toBe(2);
    expect(JSON.parse(result.stdout).error.message).toMatch(
      /categories: "liquids" is not a category; the categories are cigarettes, cigars, /,
    );
  });

  it('reports a required category whose link is missing (exit 1) and keeps its last list', async () => {
    expect((await release('2026-11-22', [], EVERY_CATEGORY)).status).toBe(0);
    await publishLists(WITHOUT_LIQUIDS());
    const result = await release('2026-11-22', [], EVERY_CATEGORY);
    expect(result.status).toBe(1);
    const summary = JSON.parse(result.stdout);
    expect(summary.status).toBe('unchanged');
    expect(summary.fetch.find((r: { label: string }) => r.label === 'inhalation_liquids list')).toMatchObject({
      status: 'failed',
      error: expect.stringMatching(/none of the \d+ document\(s\) linked from .* is the inhalation_liquids list/),
    });
    expect((await products()).some((p) => p.category === 'inhalation_liquids')).toBe(true);
  });

  it('refuses a page that no longer yields the lists, naming what was not found, and publishes nothing', async () => {
    authority.lists.set('/prezzi', {
      body: '<html><body><h1>Prezzi</h1><p>Sezione in aggiornamento.</p><a href="/">Home</a></body></html>',
      contentType: 'text/html',
    });
    const result = await release('2026-11-22');
    expect(result.status).toBe(1);
    const { error } = JSON.parse(result.stdout);
    expect(error.code).toBe('source_page_unrecognised');
    expect(error.message).toMatch(/no category price list \(sigarette, sigari, sigaretti, trinciati, .*\) is linked/);
    expect(readBucketKey(bucket, 'current.json')).toBeNull();
  });

  it('reads a document by what it holds, not by its link: a notice behind the cigar link is a notice, and the cigar list is missing', async () => {
    const notice = await makeNoticePdf({
      sentence: 'con decorrenza dal 1° dicembre 2026',
      tables: [{ category: 'Sigari', withCode: true, rows: [['21825', 'TOSCANO T', 'da 6 sigari', '1.500,00', '1.600,00', '48,00']] }],
    });
    await publishLists(PRICE_PAGE, '01/11/2026', { 'Sigari.pdf': notice });
    const result = await release('2026-11-22');
    expect(result.status).toBe(1);
    const summary = JSON.parse(result.stdout);
    expect(summary.fetch.find((r: { url: string }) => r.url.includes('Sigari.pdf'))).toMatchObject({
      label: 'notice',
      status: 'changed',
      effectiveDates: [{ date: '2026-12-01', when: 'future' }],
    });
    expect(summary.fetch.find((r: { label: string }) => r.label === 'cigars list')).toMatchObject({
      status: 'failed',
      error: expect.stringMatching(/is the cigars list; its last snapshot stays in use/),
    });
    expect(summary.status).toBe('published');
    expect((await products()).some((p) => p.category === 'cigars')).toBe(false);
  });
});

describe('tariff build --source <url>', () => {
  it('downloads a PDF list from an address without an extension and reads it by its content', async () => {
    const out = join(await tempDir(), 'release');
    const href = decodeURIComponent(/href="([^"]*Sigari\.pdf[^"]*)"/.exec(PRICE_PAGE)![1]!);
    const result = await runCli(['build', '--source', authority.url(href), '--date', '2026-11-22', '--out', out, '--data-dir', dataDir]);
    expect(result.status).toBe(0);
    expect(result.stderr).toContain('built 20260722.1: tariff in force from 2026-07-22, 2 products');
  });
});
