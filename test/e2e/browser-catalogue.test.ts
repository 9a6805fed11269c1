import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gs1CheckDigit } from '../../src/gs1/gtin.ts';
import type { AuthorityServer } from '../helpers/authority-server.ts';
import { releaseFromSite, standInAuthoritySite } from '../helpers/authority-site.ts';
import { accessibilityViolations, checkableContext, chromiumAvailable, launchChromium, SCREENSHOTS } from '../helpers/browser.ts';
import { readWithPdftotext } from '../helpers/pdftotext-reading.ts';
import { REPO, runCli } from '../helpers/run-cli.ts';
import { serveInProcess } from '../helpers/serve-in-process.ts';
import type { RunningServe } from '../helpers/serve-process.ts';
import { waitFor } from '../helpers/wait-for.ts';

const available = chromiumAvailable;
const LIST_2023 = join(REPO, 'fixtures/adm/listino-sigari-2023-10-31.pdf');
const LIST_2026 = join(REPO, 'fixtures/adm/listino-sigari-2026-07-22.pdf');
/** AMMEZZATI TOSCANO GARIBALDI: in both real cigar lists, at another price in each. */
const CODE = 684;
const BARCODE = `800100200684${gs1CheckDigit('800100200684')}`;

let browser: Browser;
let context: BrowserContext;
let authority: AuthorityServer;
let service: RunningServe;
let dataDir: string;
let barcodes: string;
/** How far the service's clock is moved ahead of the real one (its pages read the bucket again once a minute). */
let clockAhead = 0;

/** The release of the stand-in authority's site on that day, and the service serving it. */
async function releaseOn(date: string): Promise<string> {
  const run = await releaseFromSite(authority, dataDir, date, ['--barcodes', barcodes]);
  expect(run.status, run.stderr).toBe(0);
  const { version } = JSON.parse(run.stdout) as { version: string };
  if (service)
    await waitFor(
      async () => (await (await fetch(`${service.url}/healthz`)).json()).release === version,
      `the service to serve ${version}`,
    );
  return version;
}

beforeAll(async () => {
  if (!available) return;
  // Kept for the whole file (tempDir's are removed after each test): the service reads it throughout.
  dataDir = await mkdtemp(join(tmpdir(), 'tariff-catalogue-'));
  ({ authority } = await standInAuthoritySite());
  barcodes = join(dataDir, 'barcodes.csv');
  await writeFile(barcodes, `barcode,admCode,kind,units\n${BARCODE},${CODE},pack,1\n`);
  expect((await runCli(['history', 'import', LIST_2023, '--data-dir', dataDir])).status).toBe(0);
  // The day before the undated preview takes effect (its news item says 1 December).
  await releaseOn('2026-11-30');
  service = await serveInProcess(
    dataDir,
    { TARIFF_MANIFEST_POLL_MS: '100', TARIFF_PUBLIC_PAGES_PER_MINUTE: '1000' },
    { now: () => new Date(Date.now() + clockAhead) },
  );
  browser = await launchChromium();
  context = await checkableContext(browser);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await service?.stop();
  await authority?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

/** No serious accessibility violation, and a screenshot of the first screen for docs/website.md. */
async function check(page: Page, name: string): Promise<void> {
  expect(await accessibilityViolations(page), `accessibility of ${name}`).toEqual([]);
  await page.screenshot({ path: join(SCREENSHOTS, `catalogue-${name}.png`) });
}

async function search(page: Page, text: string): Promise<string[]> {
  await page.goto(`${service.url}/prodotti`);
  await page.getByLabel('Nome, codice AAMS o codice a barre').fill(text);
  await page.getByRole('button', { name: 'Cerca' }).click();
  await page.waitForURL(/\/prodotti\?q=/);
  return page.locator('table.results tbody th a').allTextContents();
}

describe.skipIf(!available)('the public catalogue in Chromium', () => {
  it('finds a product by words of its name in any order, by its tariff code and by its barcode', async () => {
    const page = await context.newPage();
    expect(await search(page, 'garibaldi AMMEZZ')).toEqual(['AMMEZZATI TOSCANO GARIBALDI']);
    await check(page, 'ricerca');
    expect(await search(page, String(CODE))).toEqual(['AMMEZZATI TOSCANO GARIBALDI']);
    expect(await search(page, BARCODE)).toEqual(['AMMEZZATI TOSCANO GARIBALDI']);
    await page.getByRole('link', { name: 'AMMEZZATI TOSCANO GARIBALDI' }).click();
    await page.waitForURL(`${service.url}/prodotti/${CODE}`);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('AMMEZZATI TOSCANO GARIBALDI');
  });

  it("shows a product's price, its barcode, and a chart whose steps are the history table's rows and the lists' prices", async () => {
    const page = await context.newPage();
    await page.goto(`${service.url}/prodotti/${CODE}`);
    const old = readWithPdftotext(LIST_2023).rows.find((r) => r.admCode === CODE)!;
    const now = readWithPdftotext(LIST_2026).rows.find((r) => r.admCode === CODE)!;
    expect(await page.locator('.price').textContent()).toBe(`${(now.pricePerPackCents / 100).toFixed(2).replace('.', ',')}\u00a0€`);
    expect(await page.locator('main table').last().textContent()).toContain(BARCODE);
    const chart = await page
      .locator('svg.wide .step')
      .evaluateAll((steps) => steps.map((s) => [s.getAttribute('data-from'), Number(s.getAttribute('data-cents'))]));
    const table = await page
      .locator('table.history tbody tr')
      .evaluateAll((rows) => rows.map((r) => [r.getAttribute('data-from'), Number(r.getAttribute('data-cents'))]));
    expect(chart).toEqual(table);
    expect(chart).toEqual([
      ['2023-10-31', old.pricePerPackCents],
      ['2026-07-22', now.pricePerPackCents],
    ]);
    // The step a release carried links to that release's page.
    expect(await page.locator('svg.wide a.step').getAttribute('href')).toMatch(/^\/aggiornamenti\/\d{8}\.\d+$/);
    await check(page, 'prodotto');
  });

  it('lists the undated preview’s announced prices the day before they take effect, and not once they have', async () => {
    const page = await context.newPage();
    await page.goto(`${service.url}/variazioni`);
    const before = (await page.locator('main').textContent())!;
    expect(before).toContain('Dal 1 dicembre 2026');
    expect(before).toMatch(/821 ARGENTO.*5,00\u00a0€.*\+/s);
    expect(before).toMatch(/TOSCANO T.*45,00\u00a0€.*48,00\u00a0€.*\+3,00\u00a0€/s);
    // Then what the last releases changed, each linked to its page.
    expect(before).toMatch(/Ultimi rilasci.*versione 20261101\.1/s);
    await check(page, 'variazioni');

    const december = await releaseOn('2026-12-01');
    clockAhead += 61_000;
    // A reload asks again (the page may be kept five minutes otherwise, as the release pages are).
    await page.reload();
    const after = (await page.locator('main').textContent())!;
    expect(after).toContain('Nessuna variazione annunciata');
    // The day's release page: the rises per category as bars, and the same counts as a table.
    await page.goto(`${service.url}/aggiornamenti/${december}`);
    const bars = await page
      .locator('svg.wide g.bars')
      .evaluateAll((groups) => groups.map((g) => [g.getAttribute('data-label'), g.querySelector('rect.up')!.getAttribute('data-count')]));
    expect(bars).toEqual([
      ['Sigarette', '1'],
      ['Sigari', '1'],
    ]);
    expect(await page.locator('table.moves tbody').textContent()).toBe('Sigarette10Sigari10');
    await check(page, 'rilascio');
  });

  it('answers a client over its limit with a 429 page that says when to try again', async () => {
    // The limit counts per minute of the service's clock: held in the middle of this minute, two
    // pages are always in one window, however slow the first load or near the minute's edge the run.
    const pinned = new Date(Math.floor(Date.now() / 60_000) * 60_000 + 30_000);
    const limited = await serveInProcess(dataDir, { TARIFF_PUBLIC_PAGES_PER_MINUTE: '1' }, { now: () => pinned });
    try {
      const page = await context.newPage();
      expect((await page.goto(`${limited.url}/prodotti`))!.status()).toBe(200);
      const refused = (await page.goto(`${limited.url}/prodotti?q=toscano`))!;
      expect(refused.status()).toBe(429);
      expect(Number(refused.headers()['retry-after'])).toBeGreaterThan(0);
      expect(await page.locator('main').textContent()).toContain('Riprova tra');
      await check(page, 'troppe-richieste');
    } finally {
      await limited.stop();
    }
  });
});
