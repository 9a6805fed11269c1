import MarkdownIt from 'markdown-it';
import { describe, expect, it } from 'vitest';
import { datasetOf, productRow } from '../../test/helpers/rows.ts';
import { diffDatasets, type DatasetDiff } from '../dataset/diff-datasets.ts';
import type { Product } from '../dataset/model.ts';
import { renderDiffMarkdown } from './render-diff-markdown.ts';

const product = (admCode: number, name: string) => productRow(admCode, { name, pricePerPackCents: 620, effectiveFrom: '2026-12-01' });

/** The diff of an empty November release to a December one holding `added`. */
const diffOf = (added: Product[]): DatasetDiff =>
  diffDatasets(
    datasetOf('20261101.1', { tariffDate: '2026-11-01', products: [] }),
    datasetOf('20261201.1', { tariffDate: '2026-12-01', products: added }),
  );

/** The cells of every table row as a CommonMark + GFM renderer (markdown-it) shows them, entities read back. */
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
    [...row[1]!.matchAll(/<t[dh]>([\s\S]*?)<\/t[dh]>/g)].map((cell) => text(cell[1]!)),
  );
}

describe('a diff as Markdown for a merge request', () => {
  it('shows names with |, &, *, _, <, ` and [ as themselves in a rendered GFM table, after a headline', () => {
    const names = ['FUMO & FIGLI È L’ORIGINALE', 'A|B *STAR* _X_', '<b>TAG</b> `X` [Y](z)', 'BACK\\SLASH'];
    const markdown = renderDiffMarkdown(diffOf(names.map((name, i) => product(1000 + i, name))));
    expect(markdown.split('\n')[0]).toBe('### 4 new products, 0 price changes, 0 removed; tariff of 2026-12-01');
    const rows = renderedCells(markdown);
    expect(rows[0]).toEqual(['code', 'name', 'pack', 'price']);
    expect(rows.slice(1).map((row) => row[1])).toEqual(names);
    expect(rows.slice(1).every((row) => row.length === 4)).toBe(true);
  });

  it('folds a long section, and at 10,000 rows stays within a GitHub comment, cut at a whole row with the count said', () => {
    const markdown = renderDiffMarkdown(diffOf(Array.from({ length: 10_000 }, (_, i) => product(10_000 + i, `PRODOTTO ${i}`))));
    expect(markdown.length).toBeLessThanOrEqual(65_536);
    expect(markdown).toContain('<details><summary>Products added (10000)</summary>');
    const cut = /_(\d+) more row\(s\) not shown here, to stay within 65536 characters: `tariff diff --json` gives them all\._/.exec(
      markdown,
    );
    expect(cut).not.toBeNull();
    const rows = renderedCells(markdown).slice(1);
    expect(rows.length + Number(cut![1])).toBe(10_000);
    expect(rows.every((row) => row.length === 4 && row[3] === '€ 6,20')).toBe(true);
    // Larger where it goes allows (a GitLab note): everything.
    expect(renderDiffMarkdown(diffOf(Array.from({ length: 10_000 }, (_, i) => product(10_000 + i, `P ${i}`))), 1_000_000)).not.toContain(
      'not shown here',
    );
  });
});
