import { execFileSync } from 'node:child_process';
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

/** Markdown rendered by GitHub's own engine, Debian's cmark-gfm, with the extensions GitHub turns on. */
function cmarkGfm(markdown: string): string {
  return execFileSync(
    'cmark-gfm',
    ['--extension', 'table', '--extension', 'autolink', '--extension', 'strikethrough', '--extension', 'tagfilter'],
    {
      input: markdown,
      encoding: 'utf8',
    },
  );
}

describe('tariff diff for a merge request and a page', () => {
  it('--format markdown: a headline, the sections as GFM tables, long ones folded; exit 1 as the releases differ', async () => {
    const result = await runCli(['diff', older, newer, '--format', 'markdown']);
    expect(result.status).toBe(1);
    const markdown = result.stdout;
    expect(markdown.split('\n')[0]).toBe(
      '### 12 new products, 1 price change (1 up), 0 removed, 10 barcodes added, 0 removed, 0 changed; tariff of 2026-12-01',
    );
    // The counts per category, then the price change first, then the rest; the 12 new products' head shown, 2 folded.
    expect(markdown.indexOf('| category | new |')).toBeLessThan(markdown.indexOf('#### Price changes (1)'));
    expect(markdown.indexOf('#### Price changes (1)')).toBeLessThan(markdown.indexOf('#### Products added (12)'));
    expect(markdown).toContain('<details><summary>2 more rows</summary>');
    const html = new MarkdownIt({ html: true }).render(markdown);
    expect(html).toContain('<td>21825</td>\n<td>TOSCANO T</td>\n<td>€ 45,00</td>\n<td>€ 48,00</td>\n<td>▲ +€ 3,00</td>\n<td>+6,7 %</td>');
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

  it('the real cigar lists of 2023 and 2026 at a comment’s 65,536 characters: counts, the largest price changes and the renames are in; the cut named per section', async () => {
    const data = ['--data-dir', join(dir, 'data-2023')];
    const lists = { 2023: join(ADM, 'listino-sigari-2023-10-31.pdf'), 2026: join(ADM, 'listino-sigari-2026-07-22.pdf') };
    const built: Record<string, string> = {};
    for (const [year, date] of [
      ['2023', '2023-10-31'],
      ['2026', '2026-07-22'],
    ] as const) {
      built[year] = join(dir, `cigars-${year}`);
      const previous = year === '2026' ? ['--previous', built['2023']!] : [];
      const result = await runCli(['build', '--source', lists[year], '--date', date, '--out', built[year]!, ...previous, ...data]);
      expect(result.status, result.stderr).toBe(0);
    }
    const json = JSON.parse((await runCli(['diff', built['2023']!, built['2026']!, '--format', 'json'])).stdout);
    const markdown = (await runCli(['diff', built['2023']!, built['2026']!, '--format', 'markdown'])).stdout;
    expect(markdown.length).toBeLessThanOrEqual(65_536);
    const cells = (html: string) =>
      [...html.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((row) =>
        [...row[1]!.matchAll(/<t[dh][^>]*>([\s\S]*?)<\/t[dh]>/g)].map((cell) => cell[1]!),
      );
    const rows = cells(cmarkGfm(markdown));
    const { added, removed, renamed, priceChanged } = json.products;
    expect(rows).toContainEqual([
      'cigars',
      String(added.length),
      String(removed.length),
      expect.any(String),
      expect.any(String),
      String(renamed.length),
      '0',
    ]);
    // Every rename, and the largest price change, as the JSON says it.
    for (const r of renamed) expect(markdown).toContain(`| ${r.admCode} |`);
    const share = (c: { oldPricePerPackCents: number; newPricePerPackCents: number }) =>
      Math.abs(c.newPricePerPackCents - c.oldPricePerPackCents) / c.oldPricePerPackCents;
    const largest = [...priceChanged].sort((a, b) => share(b) - share(a))[0];
    const priceTable = markdown.slice(markdown.indexOf('#### Price changes'));
    expect(priceTable.slice(0, priceTable.indexOf('\n| ', priceTable.indexOf('| ---')) + 200)).toContain(`| ${largest.admCode} |`);
    const note = /_Not shown here, to stay within 65536 characters: (.*)\. `tariff diff --json` gives every row\._/.exec(markdown);
    expect(note, markdown.slice(-500)).not.toBeNull();
    expect(note![1]).toMatch(new RegExp(`\\d+ of ${priceChanged.length} price changes`));
    expect(note![1]).toMatch(new RegExp(`\\d+ of ${added.length} new products`));
    expect(note![1]).toMatch(new RegExp(`\\d+ of ${removed.length} removed products`));
    expect(note![1]).not.toContain('renamed');
  });

  it('names that would mention, reference, link or compute render as themselves through cmark-gfm, one row each', async () => {
    const hostile = [
      '@everyone ciao @someuser',
      'VEDI #1 E !1 E GH-1',
      'TIPO %milestone &12 ~label $34',
      'PREZZO $x^2$ E $$y$$',
      'OTTIMO :+1: :smile:',
      'https://example.it/a www.example.it mail@example.it',
      '<script>alert(1)</script> <img src=x> ~~GIÙ~~',
    ];
    const { diffDatasets } = await import('../../src/dataset/diff-datasets.ts');
    const { renderDiffMarkdown } = await import('../../src/cli/render-diff-markdown.ts');
    const { datasetOf, productRow } = await import('../helpers/rows.ts');
    const products = hostile.map((name, i) => productRow(5000 + i, { name }));
    const markdown = renderDiffMarkdown(
      diffDatasets(
        datasetOf('20261101.1', { tariffDate: '2026-11-01', products: [] }),
        datasetOf('20261201.1', { tariffDate: '2026-12-01', products }),
      ),
    );
    const html = cmarkGfm(markdown);
    expect(html).not.toMatch(/<a |<img|<script|<del>|<em>|<strong>/);
    const body = html.slice(html.indexOf('Products added'));
    const names = [...body.matchAll(/<tr>\n<td>(\d+)<\/td>\n<td>([^<]*)<\/td>/g)].map((m) => m[2]!);
    const decode = (text: string) =>
      text
        .replace(/&lt;/g, '<')
        .replace(/&gt;/g, '>')
        .replace(/&quot;/g, '"')
        .replace(/&amp;/g, '&');
    expect(names.map((name) => decode(name).replace(/\u200B/g, ''))).toEqual(hostile);
    for (const name of names.map(decode)) {
      expect(name, 'no mention or reference').not.toMatch(/(^|[^\p{L}\p{N}])[@#!%&~$][\p{L}\p{N}"]/u);
      expect(name, 'no emoji code').not.toMatch(/:[a-z0-9_+-]+:/);
      expect(name, 'no math').not.toMatch(/\$[^\s\u200B$][^$]*\$/);
    }
  });

  it.skipIf(!chromiumAvailable)('--format html: a 500-character name wraps; its price stays on a 360 px screen', async () => {
    const { diffDatasets } = await import('../../src/dataset/diff-datasets.ts');
    const { renderDiffHtml } = await import('../../src/cli/render-diff-html.ts');
    const { datasetOf, productRow } = await import('../helpers/rows.ts');
    const page = renderDiffHtml(
      diffDatasets(
        datasetOf('20261101.1', { tariffDate: '2026-11-01', products: [] }),
        datasetOf('20261201.1', { tariffDate: '2026-12-01', products: [productRow(7001, { name: 'X'.repeat(500) })] }),
      ),
    );
    const file = join(await tempDir(), 'diff.html');
    writeFileSync(file, page);
    const context = await checkableContext(browser!, { viewport: { width: 360, height: 740 }, isMobile: true, deviceScaleFactor: 2 });
    try {
      const tab = await context.newPage();
      await tab.goto(`file://${file}`);
      const price = tab.locator('section', { hasText: 'Products added' }).locator('td').nth(3);
      expect(await price.textContent()).toBe('€ 6,00');
      const box = (await price.boundingBox())!;
      expect(box.x + box.width).toBeLessThanOrEqual(360);
      expect((await layoutProblems(tab)).filter((problem) => problem.startsWith('scrolls sideways'))).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
