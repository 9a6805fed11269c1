import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import MarkdownIt from 'markdown-it';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessibilityViolations, checkableContext, chromiumAvailable, launchChromium } from '../helpers/browser.ts';
import { layoutProblems } from '../helpers/page-geometry.ts';
import { REPO, runCli } from '../helpers/run-cli.ts';
import { tempDir } from '../helpers/temp-dir.ts';

// `tariff diff --format markdown|html` on the bundled lists, as a maintainer reads it in a merge
// request or a pipeline's page: the cigar list of 2026-07-22, then the tariff of 2026-12-01.
const ADM = join(REPO, 'fixtures/adm');
let older: string;
let newer: string;
let browser: Browser | null = null;

let dir: string;
beforeAll(async () => {
  // Made here and removed after all: a test's temporary folders go with each test.
  dir = mkdtempSync(join(tmpdir(), 'tariff-diff-formats-'));
  const sources = join(dir, 'sources');
  mkdirSync(sources);
  for (const name of [
    'listino-sigari-2026-07-22.pdf',
    'avviso-prezzi-2026-12-01.pdf',
    'listino-altri-tabacchi-2026-11-01.pdf',
    'listino-fiuto-mastico-2026-11-01.pdf',
    'listino-inalazione-2026-11-01.pdf',
    'listino-liquidi-2026-11-01.pdf',
    'listino-sigarette-2026-11-01.pdf',
    'listino-sigaretti-2026-11-01.pdf',
    'listino-trinciati-2026-11-01.pdf',
  ])
    copyFileSync(join(ADM, name), join(sources, name));
  older = join(dir, 'older');
  newer = join(dir, 'newer');
  const data = ['--data-dir', join(dir, 'data')];
  expect(
    (await runCli(['build', '--source', join(ADM, 'listino-sigari-2026-07-22.pdf'), '--date', '2026-07-22', '--out', older, ...data]))
      .status,
  ).toBe(0);
  const built = await runCli([
    'build',
    '--source',
    sources,
    '--barcodes',
    join(ADM, 'barcodes.csv'),
    '--previous',
    older,
    '--date',
    '2026-12-01',
    '--out',
    newer,
    ...data,
  ]);
  expect(built.status, built.stderr).toBe(0);
  if (chromiumAvailable) browser = await launchChromium();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('tariff diff for a merge request and a page', () => {
  it('--format markdown: a headline, the sections as GFM tables, long ones folded; exit 1 as the releases differ', async () => {
    const result = await runCli(['diff', older, newer, '--format', 'markdown']);
    expect(result.status).toBe(1);
    const markdown = result.stdout;
    expect(markdown.split('\n')[0]).toBe(
      '### 12 new products, 1 price change (1 up), 0 removed, 10 barcodes added, 0 removed, 0 changed; tariff of 2026-12-01',
    );
    expect(markdown).toContain('<details><summary>Products added (12)</summary>');
    const html = new MarkdownIt({ html: true }).render(markdown);
    // Tables a reader sees: the price change with its old and new price per pack and per kg.
    expect(html).toContain('<td>21825</td>\n<td>TOSCANO T</td>\n<td>45,00</td>\n<td>48,00</td>\n<td>1.500,00</td>\n<td>1.600,00</td>');
    expect(html).toContain("<td>FUMO &amp; FIGLI È L'ORIGINALE</td>");
    expect((await runCli(['diff', older, older, '--format', 'markdown'])).status).toBe(0);
  });

  it.skipIf(!chromiumAvailable)(
    '--format html: one page, readable at 360 px without the page scrolling sideways, no WCAG A/AA violation',
    async () => {
      const result = await runCli(['diff', older, newer, '--format', 'html']);
      expect(result.status, result.stderr).toBe(1);
      const file = join(await tempDir(), 'diff.html');
      writeFileSync(file, result.stdout);
      const context = await checkableContext(browser!, { viewport: { width: 360, height: 740 }, isMobile: true, deviceScaleFactor: 2 });
      try {
        const page = await context.newPage();
        await page.goto(`file://${file}`);
        await page.locator('summary').first().click();
        expect(await page.locator('h1').textContent()).toContain('12 new products');
        expect(await page.locator('table').count()).toBeGreaterThanOrEqual(3);
        expect((await layoutProblems(page)).filter((problem) => problem.startsWith('scrolls sideways'))).toEqual([]);
        expect(await accessibilityViolations(page)).toEqual([]);
      } finally {
        await context.close();
      }
    },
  );
});
