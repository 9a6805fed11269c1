import { join } from 'node:path';
import { type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gs1CheckDigit } from '../../src/gs1/gtin.ts';
import { followMail as followMailIn, signIn as signInAs } from '../helpers/browser-journeys.ts';
import { messageCount, messageNumber } from '../helpers/outbox.ts';
import { serveRealReleases } from '../helpers/real-releases.ts';
import { runCli } from '../helpers/run-cli.ts';
import { accessibilityViolations, checkableContext, chromiumAvailable, launchChromium, SCREENSHOTS } from '../helpers/browser.ts';

const available = chromiumAvailable;

let browser: Browser;
const stand = serveRealReleases({});
const cli = (args: string[]) => runCli([...args, '--data-dir', stand.dataDir]);
const checkedPages = new Set<string>();

beforeAll(async () => {
  if (!available) return;
  expect((await cli(['accounts', 'create', 'moderazione@example.it', '--type', 'User'])).status).toBe(0);
  expect((await cli(['accounts', 'admin', 'moderazione@example.it'])).stdout).toContain('is an administrator');
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
});

/**
 * axe-core in the page: no serious or critical accessibility violation. Every page a flow visits is
 * checked, and a screenshot kept under test-artifacts/screenshots.
 */
async function check(page: Page, name: string): Promise<void> {
  expect(await accessibilityViolations(page), `accessibility of ${name}`).toEqual([]);
  checkedPages.add(new URL(page.url()).pathname);
  // The first screen, as a reviewer opens it: a whole long page costs seconds to encode.
  await page.screenshot({ path: join(SCREENSHOTS, `self-service-${name}.png`) });
}

const followMail = (page: Page, n: number, path: string) => followMailIn(page, stand.dataDir, n, path);
const signIn = (context: BrowserContext, email: string) => signInAs(context, { url: stand.service.url, dataDir: stand.dataDir }, email);

const newContext = () => checkableContext(browser);

/** A valid EAN-13 from a 12-digit body. */
const ean13 = (body: string) => `${body}${gs1CheckDigit(body)}`;

describe.skipIf(!available)('self-service on the website, in Chromium', () => {
  it('signs up with the usage rules, confirms by e-mail, creates a key and lists its submissions page by page', async () => {
    const context = await newContext();
    const page = await context.newPage();
    await page.goto(`${stand.service.url}/accedi`);
    await check(page, '01-accedi');
    await page.getByRole('link', { name: 'Registrati' }).click();
    await page.getByRole('heading', { name: "Regole d'uso" }).waitFor();
    await check(page, '02-registrati');
    await page.getByLabel('Indirizzo e-mail').fill('tabaccheria.bianchi@example.it');
    await page.getByLabel('Organizzazione').fill('Tabaccheria Bianchi');
    await page.getByLabel(/^Utente/).check();
    const before = messageCount(stand.dataDir);
    await page.getByRole('button', { name: 'Registrati' }).click();
    // The rules must be accepted: the browser refuses the form until they are.
    expect(await page.getByLabel(/Ho letto e accetto/).evaluate((box: HTMLInputElement) => box.validity.valueMissing)).toBe(true);
    await page.getByLabel(/Ho letto e accetto/).check();
    await page.getByRole('button', { name: 'Registrati' }).click();
    await page.getByRole('heading', { name: 'Controlla la posta' }).waitFor();
    await check(page, '03-registrazione-inviata');

    await followMail(page, before + 1, '/conferma-registrazione');
    await check(page, '04-conferma-registrazione');
    await page.getByRole('button', { name: 'Conferma la registrazione' }).click();
    await page.waitForURL(`${stand.service.url}/account?benvenuto=1`);
    expect(await page.getByRole('status').textContent()).toContain('Benvenuto');
    await check(page, '05-account-nuovo');
    const accounts = JSON.parse((await cli(['accounts', 'list', '--json'])).stdout) as {
      email: string;
      organisation: string;
      rulesVersion: string;
    }[];
    expect(accounts.find((a) => a.email === 'tabaccheria.bianchi@example.it')).toMatchObject({
      organisation: 'Tabaccheria Bianchi',
      rulesVersion: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
      // Signed up by itself: its votes wait the vetting days, or the operator's word.
      vettedAt: null,
    });
    expect((await cli(['accounts', 'list'])).stdout).toMatch(/tabaccheria\.bianchi@example\.it +User +not vetted/);
    expect((await cli(['accounts', 'vet', 'tabaccheria.bianchi@example.it'])).stdout).toBe(
      'tabaccheria.bianchi@example.it vetted: its votes count\n',
    );

    await page.getByLabel(/Nuova chiave/).fill('cassa');
    await page.getByRole('button', { name: 'Crea una chiave' }).click();
    const key = (await page.locator('#new-key-value').textContent())!.trim();
    await check(page, '05b-nuova-chiave');
    // 51 barcodes of a real cigar code, sent as a shop's till would.
    const items = Array.from({ length: 51 }, (_, i) => ({ barcode: ean13(`80012345${String(i).padStart(4, '0')}`), admCode: 20663 }));
    const sent = await fetch(`${stand.service.url}/v1/barcodes`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ items }),
    });
    expect((await sent.json()).accepted).toBe(51);

    await page.goto(`${stand.service.url}/account`);
    await page.getByRole('link', { name: 'Le mie segnalazioni' }).click();
    expect(await page.locator('#submissions tbody tr').count()).toBe(50);
    expect(await page.locator('#submissions [data-status="to_confirm"]').count()).toBe(50);
    await check(page, '06-mie-segnalazioni');
    await page.getByRole('link', { name: 'Meno recenti →' }).click();
    expect(await page.locator('#submissions tbody tr').count()).toBe(1);
    // Looking at them spends no read: the quota is still whole but for nothing at all.
    const me = await (await fetch(`${stand.service.url}/v1/me`, { headers: { authorization: `Bearer ${key}` } })).json();
    expect(me.limits.read.used).toBe(1);
    await context.close();
  });

  it('leaves an integration waiting until an administrator approves it on the moderation desk', async () => {
    const context = await newContext();
    const page = await context.newPage();
    for (const [email, organisation] of [
      ['cassa@software.example.it', 'Software Cassa Srl'],
      ['dubbia@software.example.it', 'Dubbia Srl'],
    ]) {
      await page.goto(`${stand.service.url}/registrati`);
      await page.getByLabel('Indirizzo e-mail').fill(email!);
      await page.getByLabel('Organizzazione').fill(organisation!);
      await page.getByLabel(/^Integrazione/).check();
      await page.getByLabel(/Ho letto e accetto/).check();
      const before = messageCount(stand.dataDir);
      await page.getByRole('button', { name: 'Registrati' }).click();
      await page.getByRole('heading', { name: 'Controlla la posta' }).waitFor();
      await followMail(page, before + 1, '/conferma-registrazione');
      await page.getByRole('button', { name: 'Conferma la registrazione' }).click();
      await page.getByRole('heading', { name: 'Registrazione confermata' }).waitFor();
    }
    await check(page, '07-registrazione-in-attesa');

    const admin = await signIn(await newContext(), 'moderazione@example.it');
    await admin.getByRole('link', { name: 'Moderazione' }).click();
    await admin.getByRole('heading', { name: 'Moderazione', level: 1 }).waitFor();
    await check(admin, '08-moderazione');
    await admin.locator('tr[data-sign-up="cassa@software.example.it"]').getByRole('button', { name: 'Approva…' }).click();
    expect(await admin.locator('form.card p').first().textContent()).toContain(
      'Approvare la registrazione di cassa@software.example.it (Software Cassa Srl)?',
    );
    await check(admin, '09-conferma-approvazione');
    const mails = messageCount(stand.dataDir);
    await admin.getByRole('button', { name: 'Conferma' }).click();
    expect(await admin.getByRole('status').textContent()).toContain('Registrazione approvata');
    expect((await messageNumber(stand.dataDir, mails + 1)).subject).toBe('Il tuo account è attivo');
    expect(JSON.parse((await cli(['accounts', 'list', '--json'])).stdout).map((a: { email: string }) => a.email)).toContain(
      'cassa@software.example.it',
    );

    await admin.locator('tr[data-sign-up="dubbia@software.example.it"]').getByRole('button', { name: 'Rifiuta…' }).click();
    await check(admin, '09c-conferma-rifiuto');
    await admin.getByRole('button', { name: 'Conferma' }).click();
    expect(await admin.getByRole('status').textContent()).toContain('Registrazione rifiutata');
    expect((await messageNumber(stand.dataDir, mails + 2)).subject).toBe('La tua registrazione non è stata approvata');
    expect(await admin.locator('#sign-ups').textContent()).toContain('Nessuna registrazione in attesa.');
    expect(JSON.parse((await cli(['accounts', 'list', '--json'])).stdout).map((a: { email: string }) => a.email)).not.toContain(
      'dubbia@software.example.it',
    );
    await context.close();
    await admin.context().close();
  });

  it('moderates barcodes, accounts and points of sale, each confirmed, each in the audit log; a non-administrator finds no desk', async () => {
    const admin = await signIn(await newContext(), 'moderazione@example.it');
    await admin.goto(`${stand.service.url}/moderazione`);
    const first = ean13('800123450000');
    const card = admin.locator(`article[data-barcode="${first}"]`);
    // Approve with another match than the one voted: the shop's own submission becomes "outvoted".
    await card.getByLabel('Un altro:').check();
    await card.getByLabel('codice ADM').fill('20664');
    await card.getByRole('button', { name: 'Approva…' }).click();
    expect(await admin.locator('form.card p').first().textContent()).toContain(
      `Approvare il codice a barre ${first} con l'abbinamento 20664 · pacchetto?`,
    );
    await check(admin, '09b-conferma-approvazione-codice');
    await admin.getByRole('button', { name: 'Conferma' }).click();
    expect(await admin.getByRole('status').textContent()).toContain('Codice approvato');

    const second = ean13('800123450001');
    await admin.locator(`article[data-barcode="${second}"]`).getByRole('button', { name: 'Revoca…' }).click();
    await check(admin, '10-conferma-revoca');
    await admin.getByRole('button', { name: 'Conferma' }).click();
    expect(await admin.getByRole('status').textContent()).toContain('Codice revocato');

    for (const [action, expected] of [
      ['Blocca…', 'Account bloccato'],
      ['Sblocca…', 'Account sbloccato'],
    ] as const) {
      await admin.locator('#block-email').fill('tabaccheria.bianchi@example.it');
      await admin.locator('form[action="/moderazione/account"]').getByRole('button', { name: action, exact: true }).click();
      await admin.getByRole('button', { name: 'Conferma' }).click();
      expect(await admin.getByRole('status').textContent()).toContain(expected);
    }
    await admin.locator('#contributor-email').fill('cassa@software.example.it');
    await admin.locator('#contributor-ref').fill('negozio-042');
    await admin.locator('form[action="/moderazione/punto-vendita"]').getByRole('button', { name: 'Blocca…', exact: true }).click();
    await admin.getByRole('button', { name: 'Conferma' }).click();
    expect(await admin.getByRole('status').textContent()).toContain('Punto vendita bloccato');
    await admin.locator('#contributor-email').fill('cassa@software.example.it');
    await admin.locator('#contributor-ref').fill('negozio-042');
    await admin.locator('form[action="/moderazione/punto-vendita"]').getByRole('button', { name: 'Sblocca…', exact: true }).click();
    await check(admin, '10b-conferma-sblocco-punto');
    await admin.getByRole('button', { name: 'Conferma' }).click();
    expect(await admin.getByRole('status').textContent()).toContain('Punto vendita sbloccato');
    const log = await admin.locator('#audit tbody').textContent();
    for (const action of [
      'contributor.unblock',
      'contributor.block',
      'account.unblock',
      'account.block',
      'barcode.revoke',
      'barcode.approve',
      'sign_up.approve',
    ])
      expect(log).toContain(action);
    expect(log).toContain('web (moderazione@example.it)');
    await check(admin, '11-registro');
    await admin.context().close();

    const shop = await signIn(await newContext(), 'tabaccheria.bianchi@example.it');
    // Submitted in one batch (one instant), they are listed in barcode order: the first is on page 1.
    await shop.goto(`${stand.service.url}/account/segnalazioni`);
    expect(await shop.locator(`tr[data-barcode="${first}"] [data-status]`).getAttribute('data-status')).toBe('outvoted');
    expect(await shop.locator(`tr[data-barcode="${second}"] [data-status]`).getAttribute('data-status')).toBe('revoked');
    await shop.goto(`${stand.service.url}/moderazione`);
    await shop.getByRole('heading', { name: 'Pagina non trovata' }).waitFor();
    await check(shop, '12-moderazione-non-amministratore');
    await shop.context().close();
  });

  it('checks the remaining pages for accessibility', async () => {
    const page = await (await newContext()).newPage();
    for (const [path, name] of [
      ['/aggiornamenti', '13-aggiornamenti'],
      ['/aggiornamenti/20260801.1', '14-rilascio'],
      ['/accesso?t=scaduto', '15-link-non-valido'],
      ['/chiavi-di-firma', '19-chiavi-di-firma'],
    ] as const) {
      await page.goto(`${stand.service.url}${path}`);
      await check(page, name);
    }
    // A form whose CSRF cookie is gone (403), and the sixth link in an hour for one address (429).
    await page.goto(`${stand.service.url}/accedi`);
    await page.context().clearCookies();
    await page.getByLabel('Indirizzo e-mail').fill('tabaccheria.bianchi@example.it');
    await page.getByRole('button', { name: 'Inviami il link di accesso' }).click();
    await page.getByRole('heading', { name: 'Richiesta non valida' }).waitFor();
    await check(page, '17-richiesta-non-valida');
    for (let i = 0; i < 6; i++) {
      await page.goto(`${stand.service.url}/accedi`);
      await page.getByLabel('Indirizzo e-mail').fill('ripetuto@example.it');
      await page.getByRole('button', { name: 'Inviami il link di accesso' }).click();
      await page.locator('h1').waitFor();
    }
    await page.getByRole('heading', { name: 'Troppe richieste' }).waitFor();
    await check(page, '18-troppe-richieste');
    const shop = await signIn(await newContext(), 'tabaccheria.bianchi@example.it');
    await shop.locator('#keys').getByRole('link', { name: 'Revoca' }).first().click();
    await check(shop, '16-conferma-revoca-chiave');
    expect([...checkedPages].sort()).toEqual(
      [
        '/account',
        '/account/chiavi',
        '/account/chiavi/1/revoca',
        '/account/segnalazioni',
        '/accedi',
        '/accesso',
        '/aggiornamenti',
        '/aggiornamenti/20260801.1',
        '/chiavi-di-firma',
        '/conferma-registrazione',
        '/moderazione',
        '/moderazione/approva',
        '/moderazione/approva-registrazione',
        '/moderazione/punto-vendita',
        '/moderazione/revoca',
        '/moderazione/rifiuta-registrazione',
        '/registrati',
      ].sort(),
    );
    await page.context().close();
    await shop.context().close();
  });
});
