import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from 'playwright-core';
import { REPO } from './run-cli.ts';

export const CHROMIUM = '/usr/bin/chromium';
export const SCREENSHOTS = join(REPO, 'test-artifacts', 'screenshots');
/** CI installs Debian's Chromium (.ci/run): there a missing browser fails the suite; elsewhere the browser tests are skipped. */
export const chromiumAvailable = existsSync(CHROMIUM) || Boolean(process.env.CI);

/** Debian's Chromium, headless, quiet (no network of its own), and the screenshots folder ready. */
export function launchChromium(): Promise<Browser> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
let axeUrl: Promise<string> | undefined;

/**
 * axe-core's script, served on loopback for the pages to load by URL: Chromium then caches it and
 * its compiled code, where a script handed to each page as text (`addScriptTag({ path })`) is
 * compiled anew every time, 0.3–0.7 s a check. Unref'd: it never holds a test process open.
 */
function axeScriptUrl(): Promise<string> {
  axeUrl ??= new Promise((resolve) => {
    const script = readFileSync(AXE);
    const server = createServer((_, response) => {
      response.writeHead(200, { 'content-type': 'text/javascript', 'cache-control': 'max-age=3600' }).end(script);
    });
    server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}/axe.min.js`));
    server.unref();
  });
  return axeUrl;
}

/**
 * A browser context whose pages can be checked by `accessibilityViolations`: the site's
 * Content-Security-Policy, which rightly refuses a script the site did not send, lets axe-core in.
 */
export function checkableContext(browser: Browser, options: BrowserContextOptions = {}): Promise<BrowserContext> {
  return browser.newContext({ ...options, bypassCSP: true });
}

/**
 * axe-core run in the page: its serious and critical violations of the WCAG 2.1 A and AA rules
 * (the law's bar for public services, not axe's best practices), each with where it is. The page
 * belongs to a `checkableContext`.
 */
export async function accessibilityViolations(page: Page): Promise<string[]> {
  await page.addScriptTag({ url: await axeScriptUrl() });
  return page.evaluate(async () => {
    const { axe } = window as unknown as {
      axe: {
        run: (
          context: Document,
          options: object,
        ) => Promise<{ violations: { id: string; impact: string | null; nodes: { target: string[] }[] }[] }>;
      };
    };
    const result = await axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] },
      resultTypes: ['violations'],
    });
    return result.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  });
}
