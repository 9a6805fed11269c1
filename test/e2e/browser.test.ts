import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { type Browser, type Locator, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { latestSignInLink } from '../helpers/outbox.ts';
import { REPO, runCli } from '../helpers/run-cli.ts';
import { serveInProcess } from '../helpers/serve-in-process.ts';
import type { RunningServe } from '../helpers/serve-process.ts';
import { chromiumAvailable, launchChromium, SCREENSHOTS } from '../helpers/browser.ts';

const available = chromiumAvailable;

let browser: Browser;
let service: RunningServe;
let dataDir: string;

beforeAll(async () => {
  if (!available) return;
  // Kept for the whole file (tempDir's are removed after each test): the service reads it throughout.
  dataDir = await mkdtemp(join(tmpdir(), 'tariff-browser-'));
  const out = join(dataDir, 'build');
  await runCli(['build', '--source', join(REPO, 'fixtures/sample/tariff'), '--date', '2026-11-22', '--out', out, '--data-dir', dataDir]);
  await runCli(['publish', out, '--data-dir', dataDir]);
  await runCli(['accounts', 'create', 'tabaccheria.rossi@example.it', '--type', 'User', '--data-dir', dataDir]);
  await runCli(['accounts', 'create', 'attaccante@example.it', '--type', 'User', '--data-dir', dataDir]);
  // The browser is the real peer; the service runs in this process.
  service = await serveInProcess(dataDir);
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await service?.stop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

async function signIn(page: Page, shot?: string): Promise<void> {
  await page.goto(`${service.url}/accedi`);
  await page.getByLabel('Indirizzo e-mail').fill('tabaccheria.rossi@example.it');
  if (shot) await page.screenshot({ path: join(SCREENSHOTS, `${shot}-accedi.png`), fullPage: true });
  const before = messagesInOutbox();
  await page.getByRole('button', { name: 'Inviami il link di accesso' }).click();
  expect(await textOf(page.locator('p.notice'))).toContain('riceverai a breve');
  if (shot) await page.screenshot({ path: join(SCREENSHOTS, `${shot}-link-inviato.png`), fullPage: true });
  await page.goto(await latestSignInLink(dataDir, before + 1));
  if (shot) await page.screenshot({ path: join(SCREENSHOTS, `${shot}-conferma.png`), fullPage: true });
  await page.getByRole('button', { name: 'Accedi' }).click();
  await page.waitForURL(`${service.url}/account`);
}

const messagesInOutbox = () =>
  existsSync(join(dataDir, 'outbox')) ? readdirSync(join(dataDir, 'outbox')).filter((name) => name.endsWith('.eml')).length : 0;

/** The text of an element once it is visible (playwright-core has no assertion library of its own). */
async function textOf(locator: Locator): Promise<string> {
  await locator.first().waitFor({ state: 'visible' });
  return ((await locator.first().textContent()) ?? '').trim();
}

const me = (key: string) => fetch(`${service.url}/v1/me`, { headers: { authorization: `Bearer ${key}` } });

describe.skipIf(!available)('the website in a real browser', () => {
  it('signs in by e-mail link, manages keys, shows the counters, and signs out everywhere', async () => {
    const first = await browser.newContext();
    const page = await first.newPage();
    await signIn(page, '01');
    expect(await textOf(page.locator('#account-email'))).toBe('tabaccheria.rossi@example.it');
    await page.screenshot({ path: join(SCREENSHOTS, '02-account.png'), fullPage: true });

    await page.getByLabel(/Nuova chiave/).fill('cassa 1');
    await page.getByRole('button', { name: 'Crea una chiave' }).click();
    const key = (await page.locator('#new-key-value').textContent())!.trim();
    expect(key).toMatch(/^ttd_[A-Za-z0-9_-]{43}$/);
    expect(await textOf(page.locator('#new-key'))).toContain('non sarà più mostrata');
    await page.getByRole('button', { name: 'Copia' }).waitFor({ state: 'visible' });
    await page.screenshot({ path: join(SCREENSHOTS, '03-nuova-chiave.png'), fullPage: true });

    expect((await me(key)).status).toBe(200);
    expect((await me(key)).status).toBe(200);
    await page.goto(`${service.url}/account`);
    expect(await textOf(page.locator('[data-counter="read"]'))).toBe('2 su 10');
    expect(await page.locator('#new-key').count()).toBe(0);
    expect(await textOf(page.locator('#keys'))).toContain(key.slice(0, 12));

    for (const label of ['cassa 2', 'cassa 3']) {
      await page.getByLabel(/Nuova chiave/).fill(label);
      await page.getByRole('button', { name: 'Crea una chiave' }).click();
      await page.locator('#new-key').waitFor({ state: 'visible' });
    }
    await page.getByLabel(/Nuova chiave/).fill('cassa 4');
    await page.getByRole('button', { name: 'Crea una chiave' }).click();
    expect(await textOf(page.getByRole('alert'))).toContain('Revoca prima una chiave');
    expect(await page.locator('#new-key').count()).toBe(0);
    await page.screenshot({ path: join(SCREENSHOTS, '04-quarta-chiave-rifiutata.png'), fullPage: true });

    const second = await browser.newContext();
    const other = await second.newPage();
    await signIn(other);
    expect(await textOf(other.locator('#account-email'))).toBe('tabaccheria.rossi@example.it');

    await page.goto(`${service.url}/account`);
    await page
      .locator(`tr[data-key="${key.slice(0, 12)}"]`)
      .getByRole('link', { name: 'Revoca' })
      .click();
    await page.screenshot({ path: join(SCREENSHOTS, '05-conferma-revoca.png'), fullPage: true });
    await page.getByRole('button', { name: 'Revoca la chiave' }).click();
    expect(await textOf(page.getByRole('status'))).toContain('è stata revocata');
    expect((await me(key)).status).toBe(401);

    await page.getByRole('button', { name: 'Esci da tutti i dispositivi' }).click();
    await page.waitForURL(`${service.url}/accedi`);
    await other.goto(`${service.url}/account`);
    await other.waitForURL(`${service.url}/accedi`);
    await other.getByRole('heading', { name: 'Accedi' }).waitFor({ state: 'visible' });
    await first.close();
    await second.close();
  });
});

describe.skipIf(!available)('the public page of releases on a phone', () => {
  it('fits a phone screen without sideways scrolling, signed out', async () => {
    const phone = await browser.newContext({ viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 });
    const page = await phone.newPage();
    await page.goto(`${service.url}/aggiornamenti`);
    await page.getByRole('heading', { name: 'Aggiornamenti della tariffa' }).waitFor({ state: 'visible' });
    expect(await textOf(page.locator('article p').nth(1))).toBe('Primo rilascio: nessun rilascio precedente con cui confrontarlo.');
    expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
    await page.screenshot({ path: join(SCREENSHOTS, '06-aggiornamenti-telefono.png'), fullPage: true });
    await phone.close();
  });
});

describe.skipIf(!available)('login CSRF in a real browser', () => {
  it("refuses a page elsewhere that posts the attacker's sign-in link, so the victim is not signed into the attacker's account", async () => {
    // The attacker asks for a link to its own account, as anyone can.
    const form = await fetch(`${service.url}/accedi`);
    const cookie = form.headers.get('set-cookie')!.split(';')[0]!;
    const csrf = /name="_csrf" value="([^"]+)"/.exec(await form.text())![1]!;
    const before = messagesInOutbox();
    await fetch(`${service.url}/accedi`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ _csrf: csrf, email: 'attaccante@example.it' }),
    });
    const token = new URL(await latestSignInLink(dataDir, before + 1)).searchParams.get('t')!;

    // Its page, on another site (localhost is not 127.0.0.1), submits the sign-in form at once.
    const evil = createServer((_, response) => {
      response
        .writeHead(200, { 'content-type': 'text/html' })
        .end(
          `<form id="f" method="post" action="${service.url}/accesso"><input type="hidden" name="token" value="${token}"></form><script>document.getElementById('f').submit()</script>`,
        );
    });
    await new Promise<void>((resolve) => evil.listen(0, '127.0.0.1', resolve));
    const victim = await browser.newContext();
    try {
      const page = await victim.newPage();
      // The victim has been on the site before: its CSRF cookie exists, but is not sent cross-site.
      await page.goto(`${service.url}/accedi`);
      const posted = page.waitForResponse(
        (response) => response.url() === `${service.url}/accesso` && response.request().method() === 'POST',
      );
      await page.goto(`http://localhost:${(evil.address() as AddressInfo).port}/`);
      expect((await posted).status()).toBe(403);
      await page.screenshot({ path: join(SCREENSHOTS, '06-csrf-accesso-rifiutato.png'), fullPage: true });
      await page.goto(`${service.url}/account`);
      await page.waitForURL(`${service.url}/accedi`);
      expect(await victim.cookies(service.url)).not.toContainEqual(expect.objectContaining({ name: 'sessione' }));
    } finally {
      await victim.close();
      await new Promise((resolve) => evil.close(resolve));
    }
    // The link itself was not spent: its owner can still use it.
    const owner = await browser.newContext();
    const page = await owner.newPage();
    await page.goto(`${service.url}/accesso?t=${token}`);
    await page.getByRole('button', { name: 'Accedi' }).click();
    await page.waitForURL(`${service.url}/account`);
    expect(await textOf(page.locator('#account-email'))).toBe('attaccante@example.it');
    await owner.close();
  });
});
