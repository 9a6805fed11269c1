import type { BrowserContext, Page } from 'playwright-core';
import { expect } from 'vitest';
import { messageCount, messageNumber } from './outbox.ts';

/** Follows the link of mail number `n` in the data dir's outbox that goes to `path`. */
export async function followMail(page: Page, dataDir: string, n: number, path: string): Promise<void> {
  const mail = await messageNumber(dataDir, n);
  const link = new RegExp(`https?://\\S+${path}\\?t=[A-Za-z0-9_-]+`).exec(mail.text)?.[0];
  expect(link, `a ${path} link in mail ${n} (${mail.subject})`).toBeDefined();
  await page.goto(link!);
}

/** Signs in as a person does: the address on /accedi, the mailed link, "Accedi"; the page is then on /account. */
export async function signIn(context: BrowserContext, site: { url: string; dataDir: string }, email: string): Promise<Page> {
  const page = await context.newPage();
  await page.goto(`${site.url}/accedi`);
  await page.getByLabel('Indirizzo e-mail').fill(email);
  const before = messageCount(site.dataDir);
  await page.getByRole('button', { name: 'Inviami il link di accesso' }).click();
  await page.locator('p.notice').waitFor();
  await followMail(page, site.dataDir, before + 1, '/accesso');
  await page.getByRole('button', { name: 'Accedi' }).click();
  await page.waitForURL(`${site.url}/account`);
  return page;
}
