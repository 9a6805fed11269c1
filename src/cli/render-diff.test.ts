import { describe, expect, it } from 'vitest';
import { cigarRow, datasetOf } from '../../test/helpers/rows.ts';
import { diffDatasets } from '../dataset/diff-datasets.ts';
import type { Dataset, Product } from '../dataset/model.ts';
import { renderDiff } from './render-diff.ts';

const product = (admCode: number, overrides: Partial<Product> = {}) => cigarRow(admCode, { effectiveFrom: '2026-07-22', ...overrides });
const dataset = (version: string, tariffDate: string, products: Product[], barcodes: Dataset['barcodes'] = []): Dataset =>
  datasetOf(version, { tariffDate, products, barcodes });
const codes = Array.from({ length: 300 }, (_, i) => i + 1);

describe('renderDiff', () => {
  it('says a new list date in one line per date pair, not one per product', () => {
    const older = dataset(
      '20260722.1',
      '2026-07-22',
      codes.map((c) => product(c)),
    );
    const newer = dataset(
      '20261101.1',
      '2026-11-01',
      codes.map((c) => product(c, { effectiveFrom: '2026-11-01', ...(c === 7 ? { pricePerPackCents: 650, pack: 'da 10 pezzi' } : {}) })),
    );
    const text = renderDiff(diffDatasets(older, newer));
    expect(text).toContain('Effective dates (300 products)\n2026-07-22 → 2026-11-01: 300 products');
    // The one real change stays visible, with what it was and is.
    expect(text).toMatch(/Price changes \(1\)\n.*\n.*\n7\s+P7\s+€ 6,00\s+€ 6,50\s+▲ \+€ 0,50\s+\+8,3 %/);
    expect(text).toMatch(/Other product changes \(1\)\n.*\n.*\n7\s+P7\s+pack\s+da 5 pezzi\s+da 10 pezzi/);
    // The counts per category first: one price up among the cigars.
    expect(text).toMatch(/^category\s+new\s+removed\s+price up\s+price down\s+renamed\s+barcodes\n.*\ncigars\s+0\s+0\s+1\s+0\s+0\s+0$/m);
    expect(text.split('\n').length).toBeLessThan(24);
  });

  it('shows the first rows of a long section and counts the rest, or every row when asked', () => {
    const older = dataset('20260722.1', '2026-07-22', []);
    const newer = dataset(
      '20260722.2',
      '2026-07-22',
      codes.map((c) => product(c)),
    );
    const text = renderDiff(diffDatasets(older, newer), 50);
    expect(text).toContain('Products added (300)');
    expect(text).toContain('… and 250 more (--all or --json shows them)');
    expect(text).not.toMatch(/^51\s/m);
    expect(renderDiff(diffDatasets(older, newer), Infinity)).toMatch(/^300\s+P300/m);
  });
});
