import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { chromium, type Browser, type Page } from 'playwright-core';
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

/**
 * axe-core run in the page: its serious and critical violations of the WCAG 2.1 A and AA rules
 * (the law's bar for public services, not axe's best practices), each with where it is. The page's
 * context must let the script in past the site's Content-Security-Policy (`bypassCSP: true`).
 */
export async function accessibilityViolations(page: Page): Promise<string[]> {
  await page.addScriptTag({ path: AXE });
  return page.evaluate(async () => {
    const result = await (
      window as unknown as {
        axe: {
          run: (
            context: Document,
            options: object,
          ) => Promise<{ violations: { id: string; impact: string | null; nodes: { target: string[] }[] }[] }>;
        };
      }
    ).axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } });
    return result.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  });
}
