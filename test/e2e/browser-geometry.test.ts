import { copyFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gs1CheckDigit } from '../../src/gs1/gtin.ts';
import { accessibilityViolations, checkableContext, chromiumAvailable, launchChromium, SCREENSHOTS } from '../helpers/browser.ts';
import { followMail, signIn } from '../helpers/browser-journeys.ts';
import { messageCount } from '../helpers/outbox.ts';
import { layoutProblems } from '../helpers/page-geometry.ts';
import { serveRealReleases } from '../helpers/real-releases.ts';
import { REPO, runCli } from '../helpers/run-cli.ts';

const available = chromiumAvailable;
/** A phone held upright, and a desktop. */
const WIDTHS = [360, 1280] as const;
const ADMIN = 'moderazione@example.it';
/** A real cigar whose price the second release changed: its page has a chart of two steps. */
const CHANGED = 20663;

const stand = serveRealReleases({});
const site = () => ({ url: stand.service.url, dataDir: stand.dataDir });
let browser: Browser;
/** The administrator signed in, one context per width (the session cookie is the context's). */
const signedIn = new Map<number, BrowserContext>();

const PUBLIC_PAGES: [name: string, path: string][] = [
  ['home', '/'],
  ['prodotti', '/prodotti'],
  ['ricerca', '/prodotti?q=toscano'],
  ['prodotto', `/prodotti/${CHANGED}`],
  ['variazioni', '/variazioni'],
  ['aggiornamenti', '/aggiornamenti'],
  ['rilascio', '/aggiornamenti/20260801.1'],
  ['accedi', '/accedi'],
  ['registrati', '/registrati'],
];
const ACCOUNT_PAGES: [name: string, path: string][] = [
  ['account', '/account'],
  ['segnalazioni', '/account/segnalazioni'],
  ['moderazione', '/moderazione'],
];

beforeAll(async () => {
  if (!available) return;
  const cli = (args: string[]) => runCli([...args, '--data-dir', stand.dataDir]);
  expect((await cli(['accounts', 'create', ADMIN, '--type', 'User'])).status).toBe(0);
  expect((await cli(['accounts', 'admin', ADMIN])).status).toBe(0);
  const key = (JSON.parse((await cli(['keys', 'create', ADMIN, '--json', '--label', 'cassa 1'])).stdout) as { key: string }).key;
  // Barcodes the administrator's shop sent: its list of submissions, and cards on the desk.
  const items = [1, 2, 3].map((i) => {
    const body = `80012345${String(i).padStart(4, '0')}`;
    return { barcode: `${body}${gs1CheckDigit(body)}`, admCode: CHANGED };
  });
  const sent = await fetch(`${stand.service.url}/v1/barcodes`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ items }),
  });
  expect(sent.status).toBe(200);
  browser = await launchChromium();
  // An integration's sign-up waiting on the desk.
  const visitor = await checkableContext(browser);
  const page = await visitor.newPage();
  await page.goto(`${stand.service.url}/registrati`);
  await page.getByLabel('Indirizzo e-mail').fill('cassa@software-gestionale-per-tabaccherie.example.it');
  await page.getByLabel('Organizzazione').fill('Software Gestionale per Tabaccherie Srl');
  await page.getByLabel(/^Integrazione/).check();
  await page.getByLabel(/Ho letto e accetto/).check();
  const before = messageCount(stand.dataDir);
  await page.getByRole('button', { name: 'Registrati' }).click();
  await page.getByRole('heading', { name: 'Controlla la posta' }).waitFor();
  await followMail(page, stand.dataDir, before + 1, '/conferma-registrazione');
  await page.getByRole('button', { name: 'Conferma la registrazione' }).click();
  await page.getByRole('heading', { name: 'Registrazione confermata' }).waitFor();
  await visitor.close();
  for (const width of WIDTHS) {
    const context = await checkableContext(browser, { viewport: { width, height: 800 } });
    await (await signIn(context, site(), ADMIN)).close();
    signedIn.set(width, context);
  }
}, 120_000);

afterAll(async () => {
  await browser?.close();
});

/** Every layout problem of the page and every serious accessibility violation; a screenshot of its first screen. */
async function check(page: Page, name: string, width: number): Promise<void> {
  expect(await layoutProblems(page), `${name} at ${width} px`).toEqual([]);
  expect(await accessibilityViolations(page), `accessibility of ${name} at ${width} px`).toEqual([]);
  await page.screenshot({ path: join(SCREENSHOTS, `geometry-${name}-${width}.png`) });
}

describe.skipIf(!available)('every page at a phone’s width and a desktop’s, in Chromium', () => {
  it.each(WIDTHS)(
    'lays the public pages out at %i px: no sideways scroll, no word broken, text and targets large enough',
    async (width) => {
      const context = await checkableContext(browser, { viewport: { width, height: 800 } });
      const page = await context.newPage();
      for (const [name, path] of PUBLIC_PAGES) {
        expect((await page.goto(`${stand.service.url}${path}`))!.status(), path).toBe(200);
        await check(page, name, width);
      }
      // The product's chart is there to be measured: drawn for this width, with its steps.
      await page.goto(`${stand.service.url}/prodotti/${CHANGED}`);
      expect(await page.locator(`figure.chart svg.${width < 640 ? 'narrow' : 'wide'} .step`).count()).toBe(2);
      await context.close();
    },
  );

  it.each(WIDTHS)('lays the account, its submissions and the moderation desk out at %i px', async (width) => {
    const page = await signedIn.get(width)!.newPage();
    for (const [name, path] of ACCOUNT_PAGES) {
      expect((await page.goto(`${stand.service.url}${path}`))!.status(), path).toBe(200);
      await check(page, name, width);
    }
    // The desk has what it lays out: the sign-up waiting, the barcodes sent.
    await page.goto(`${stand.service.url}/moderazione`);
    expect(await page.locator('tr[data-sign-up]').count()).toBe(1);
    expect(await page.locator('article.card').count()).toBe(3);
  });

  it('puts the search field and its button full width and 44 px tall on a phone, with a search keyboard', async () => {
    const context = await checkableContext(browser, { viewport: { width: 360, height: 800 } });
    const page = await context.newPage();
    await page.goto(`${stand.service.url}/prodotti`);
    const field = page.getByLabel('Nome, codice AAMS o codice a barre');
    expect(await field.getAttribute('inputmode')).toBe('search');
    expect(await field.getAttribute('enterkeyhint')).toBe('search');
    const form = (await page.locator('form.search').boundingBox())!;
    for (const box of [await field.boundingBox(), await page.getByRole('button', { name: 'Cerca' }).boundingBox()]) {
      expect(box!.height).toBeGreaterThanOrEqual(44);
      // Full width: the form's width less its padding and border.
      expect(box!.width).toBeGreaterThan(form.width - 40);
    }
    await context.close();
  });

  it('prints a product page and a search without the header and the form, prices in black', async () => {
    const context = await checkableContext(browser);
    const page = await context.newPage();
    await page.emulateMedia({ media: 'print' });
    for (const path of [`/prodotti/${CHANGED}`, '/prodotti?q=toscano']) {
      await page.goto(`${stand.service.url}${path}`);
      expect(await page.locator('header').isVisible(), path).toBe(false);
      expect(await page.locator('form.search').isVisible(), path).toBe(false);
      const colours = await page
        .locator('.price, td.amount')
        .evaluateAll((cells) => [...new Set(cells.map((cell) => getComputedStyle(cell).color))]);
      expect(colours, path).toEqual(['rgb(0, 0, 0)']);
    }
    await context.close();
  });

  afterAll(async () => {
    // The screenshots docs/website.md shows: a search and a product, on a phone and a desktop.
    if (!process.env.TARIFF_UPDATE_SCREENSHOTS) return;
    for (const name of ['ricerca', 'prodotto'])
      for (const width of WIDTHS)
        await copyFile(join(SCREENSHOTS, `geometry-${name}-${width}.png`), join(REPO, 'docs/screenshots', `${name}-${width}.png`));
  });
});
