import MarkdownIt from 'markdown-it';
import { describe, expect, it } from 'vitest';
import { datasetOf, productRow } from '../../test/helpers/rows.ts';
import { diffDatasets, type DatasetDiff } from '../dataset/diff-datasets.ts';
import type { Product } from '../dataset/model.ts';
import { renderDiffMarkdown } from './render-diff-markdown.ts';

const product = (admCode: number, name: string, pricePerPackCents = 620) =>
  productRow(admCode, { name, pricePerPackCents, effectiveFrom: '2026-12-01' });

/** The diff of a November release holding `before` to a December one holding `after`. */
const diffOf = (after: Product[], before: Product[] = []): DatasetDiff =>
  diffDatasets(
    datasetOf('20261101.1', { tariffDate: '2026-11-01', products: before }),
    datasetOf('20261201.1', { tariffDate: '2026-12-01', products: after }),
  );

/** Text as a reader sees it: the zero-width spaces that keep platforms from linking it are invisible. */
const seen = (text: string) => text.replace(/\u200B/g, '');

/** The cells of every table row as a CommonMark + GFM renderer (markdown-it) shows them. */
function renderedCells(markdown: string): string[][] {
  const html = new MarkdownIt({ html: true }).render(markdown);
  const text = (cell: string) =>
    cell
      .replace(/<[^>]+>/g, '')
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&quot;/g, '"')
      .replace(/&amp;/g, '&');
  return [...html.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((row) =>
    [...row[1]!.matchAll(/<t[dh](?: style="[^"]*")?>([\s\S]*?)<\/t[dh]>/g)].map((cell) => text(cell[1]!)),
  );
}

/** The rows of the table that follows a heading or summary naming `title`. */
function tableAfter(markdown: string, title: string): string[][] {
  const at = markdown.indexOf(title);
  expect(at, title).toBeGreaterThanOrEqual(0);
  const end = markdown.indexOf('\n\n', markdown.indexOf('| ---', at));
  return renderedCells(markdown.slice(markdown.indexOf('\n|', at) + 1, end === -1 ? undefined : end)).slice(1);
}

describe('a diff as Markdown for a merge request', () => {
  it('shows names with |, &, *, _, <, ` and [ as themselves in a rendered GFM table, after a headline and the counts', () => {
    const names = ['FUMO & FIGLI È L’ORIGINALE', 'A|B *STAR* _X_', '<b>TAG</b> `X` [Y](z)', 'BACK\\SLASH'];
    const markdown = renderDiffMarkdown(diffOf(names.map((name, i) => product(1000 + i, name))));
    expect(markdown.split('\n')[0]).toBe('### 4 new products, 0 price changes, 0 removed; tariff of 2026-12-01');
    const rows = renderedCells(markdown);
    expect(rows[0]).toEqual(['category', 'new', 'removed', 'price up', 'price down', 'renamed', 'barcodes']);
    expect(rows[1]).toEqual(['cigarettes', '4', '0', '0', '0', '0', '0']);
    const added = tableAfter(markdown, 'Products added');
    expect(added.map((row) => seen(row[1]!))).toEqual(names);
    expect(added.every((row) => row.length === 4)).toBe(true);
  });

  it('lists price changes first, largest first, with €, the change marked and its percentage', () => {
    const before = [product(1, 'A', 500), product(2, 'B', 1000), product(3, 'C', 20_000), product(4, 'D', 400)];
    const after = [product(1, 'A', 550), product(2, 'B', 900), product(3, 'C', 20_200), product(4, 'D', 400), product(5, 'E')];
    const markdown = renderDiffMarkdown(diffOf(after, before));
    expect(markdown.indexOf('Price changes')).toBeLessThan(markdown.indexOf('Products added'));
    expect(tableAfter(markdown, 'Price changes')).toEqual([
      // The same share of the old price: the larger move in euro first.
      ['2', 'B', '€ 10,00', '€ 9,00', '▼ −€ 1,00', '−10,0 %'],
      ['1', 'A', '€ 5,00', '€ 5,50', '▲ +€ 0,50', '+10,0 %'],
      ['3', 'C', '€ 200,00', '€ 202,00', '▲ +€ 2,00', '+1,0 %'],
    ]);
  });

  it('gives every section its head within the budget, and names each section’s rows left out', () => {
    const before = Array.from({ length: 5_000 }, (_, i) => product(10_000 + i, `PRODOTTO ${i}`, 500));
    const after = [
      ...before.map((p, i) => ({ ...p, pricePerPackCents: 500 + (i % 97) + 1, name: i < 4 ? `${p.name} NUOVO` : p.name })),
      ...Array.from({ length: 5_000 }, (_, i) => product(20_000 + i, `NUOVO ${i}`)),
    ];
    const markdown = renderDiffMarkdown(diffOf(after, before));
    expect(markdown.length).toBeLessThanOrEqual(65_536);
    const note = /_Not shown here, to stay within 65536 characters: (\d+) of 5000 price changes; (\d+) of 5000 new products\. /.exec(
      markdown,
    );
    expect(note, markdown.slice(-400)).not.toBeNull();
    const prices = renderedCells(markdown).filter((row) => row.length === 6 && row[4]!.startsWith('▲'));
    const added = renderedCells(markdown).filter((row) => row.length === 4 && row[1]!.startsWith('NUOVO'));
    // The four renames are all there; the two long sections share what is left, each its head.
    expect(tableAfter(markdown, 'Products renamed')).toHaveLength(4);
    expect(prices.length + Number(note![1])).toBe(5_000);
    expect(added.length + Number(note![2])).toBe(5_000);
    expect(Math.abs(prices.length - added.length)).toBeLessThanOrEqual(1);
    expect(prices[0]![5]).toBe('+19,4 %');
    expect(markdown).toContain('<details><summary>4990 more rows</summary>');
    // Larger where it goes allows (a GitLab note): everything.
    expect(renderDiffMarkdown(diffOf(after, before), { chars: 1_000_000 })).not.toContain('Not shown here');
  });

  it('never exceeds the budget, the headline included, in characters or in bytes', () => {
    const diff = diffOf(Array.from({ length: 300 }, (_, i) => product(1000 + i, `ÈÀÙ ${'Ò'.repeat(40)} ${i}`)));
    for (const chars of [20, 50, 200, 1000, 5000]) {
      const markdown = renderDiffMarkdown(diff, { chars });
      expect(markdown.length, `${chars} characters`).toBeLessThanOrEqual(chars);
      expect(markdown.length, `${chars} characters`).toBeGreaterThan(0);
    }
    expect(renderDiffMarkdown(diff, { chars: 50 })).toMatch(/^### 300 new products.*…\n$/);
    const bytes = renderDiffMarkdown(diff, { bytes: 10_000 });
    expect(Buffer.byteLength(bytes)).toBeLessThanOrEqual(10_000);
    expect(bytes).toContain('to stay within 10000 bytes');
    expect(bytes.length).toBeLessThan(10_000);
  });

  it('neutralises what GitHub and GitLab would read in a name: mentions, references, math, emoji, links', () => {
    const names = [
      '@everyone @someuser',
      'VEDI #1 E !1',
      'TIPO %milestone &12 ~label $34',
      'PREZZO $x^2$',
      'OTTIMO :+1: :smile:',
      'https://example.it/a www.example.it mail@example.it',
    ];
    const markdown = renderDiffMarkdown(diffOf(names.map((name, i) => product(1000 + i, name))));
    // GFM's autolinks are checked through cmark-gfm itself (test/e2e/diff-formats.test.ts): markdown-it's
    // linkify reads more than GitHub and GitLab do (a domain of any letters), so it is not the measure here.
    const html = new MarkdownIt({ html: true }).render(markdown);
    expect(html).not.toContain('<a ');
    const cells = tableAfter(markdown, 'Products added').map((row) => row[1]!);
    expect(cells.map(seen)).toEqual(names);
    for (const cell of cells) {
      expect(cell, 'no mention or reference').not.toMatch(/(^|[^\p{L}\p{N}])[@#!%&~$][\p{L}\p{N}"]/u);
      expect(cell, 'no emoji code').not.toMatch(/:[a-z0-9_+-]+:/);
      expect(cell, 'no scheme or www').not.toMatch(/:\/\/|www\./);
    }
  });
});
