import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
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
