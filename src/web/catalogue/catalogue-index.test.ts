import { describe, expect, it } from 'vitest';
import type { Dataset, Product } from '../../dataset/model.ts';
import { emptyHistory, listObservations, recordObservations } from '../../history/price-history.ts';
import { CatalogueIndex, RESULTS_PER_PAGE } from './catalogue-index.ts';

const product = (admCode: number, name: string, category: Product['category'] = 'cigars'): Product => ({
  admCode,
  name,
  category,
  pack: 'da 5 pezzi',
  packQuantity: 5,
  packUnit: 'pieces',
  pricePerKgCents: null,
  pricePerPackCents: 480,
  effectiveFrom: '2026-07-22',
  referencePriceCents: null,
  referenceUnit: null,
});

const dataset: Pick<Dataset, 'version' | 'tariffDate' | 'products' | 'barcodes' | 'announced'> = {
  version: '20261101.1',
  tariffDate: '2026-11-01',
  products: [
    product(684, 'AMMEZZATI TOSCANO GARIBALDI'),
    product(400, 'TOSCANO GARIBALDI'),
    product(7, 'CAFFÈ NERO', 'cigarettes'),
    ...Array.from({ length: 120 }, (_, i) => product(10_000 + i, `SERIE ${i}`, 'cigarillos')),
  ],
  barcodes: [
    { barcode: '8001002006849', admCode: 684, kind: 'pack', units: 1 },
    // A UPC-A, stored in its canonical 13-digit form.
    { barcode: '0012345678905', admCode: 7, kind: 'pack', units: 1 },
  ],
  announced: [
    {
      admCode: 684,
      effectiveFrom: '2026-12-01',
      pricePerPackCents: 500,
      pricePerKgCents: null,
      referencePriceCents: 20000,
      referenceUnit: 'conventional_kg',
      source: 'avviso.pdf',
    },
  ],
};
const withdrawn = recordObservations(emptyHistory(), listObservations([product(999, 'TOSCANO ANTICO')], '2023-10-31', 'old.pdf'));
const index = CatalogueIndex.of(dataset, withdrawn);
const names = (text: string, category: Product['category'] | null = null, page = 1) =>
  index.search({ text, category, page }).entries.map((entry) => entry.name);

describe('the catalogue index', () => {
  it('finds names holding every word at a word start, in any order, accents and case aside', () => {
    expect(names('garibaldi ammezz')).toEqual(['AMMEZZATI TOSCANO GARIBALDI']);
    expect(names('toscano')).toEqual(['AMMEZZATI TOSCANO GARIBALDI', 'TOSCANO GARIBALDI', 'TOSCANO ANTICO']);
    expect(names('caffe')).toEqual(['CAFFÈ NERO']);
    expect(index.search({ text: 'toscano', category: null, page: 1 })).toMatchObject({ matchedBy: 'name', suggestions: [] });
  });

  it('ranks whole words before prefixes, then names within an edit, and takes far ones only when nothing is nearer', () => {
    const ranked = CatalogueIndex.of(
      { ...dataset, products: [product(1, 'TOSCANELLO'), product(2, 'TOSCANO'), product(3, 'ROSSO'), product(4, 'ROMEO')] },
      null,
    );
    const search = (text: string) => ranked.search({ text, category: null, page: 1 });
    expect(search('tosca').entries.map((e) => e.name)).toEqual(['TOSCANELLO', 'TOSCANO']);
    expect(search('toscano').entries.map((e) => e.name)).toEqual(['TOSCANO']);
    // One swap, one missing letter: near matches, said to be similar names.
    expect(search('tosacno')).toMatchObject({ matchedBy: 'similar', entries: [{ name: 'TOSCANO' }] });
    expect(search('oscano')).toMatchObject({ matchedBy: 'similar', entries: [{ name: 'TOSCANO' }] });
    // Two edits: only as nothing is within one.
    expect(search('toscni')).toMatchObject({ matchedBy: 'similar', entries: [{ name: 'TOSCANO' }] });
    // ROSSO is two edits from "romeo": not listed after ROMEO.
    expect(search('romeo').entries.map((e) => e.name)).toEqual(['ROMEO']);
  });

  it('finds words joined or split, and a number however its designator is written', () => {
    const spaced = CatalogueIndex.of(
      { ...dataset, products: [product(1, 'MONTECRISTO N. 2'), product(2, 'MONTE CRISTO RESERVA'), product(3, 'EPICURE N°20')] },
      null,
    );
    const search = (text: string) => spaced.search({ text, category: null, page: 1 }).entries.map((e) => e.name);
    expect(search('monte cristo')).toEqual(['MONTE CRISTO RESERVA', 'MONTECRISTO N. 2']);
    expect(search('montecristo')).toEqual(['MONTECRISTO N. 2', 'MONTE CRISTO RESERVA']);
    for (const text of ['montecristo nº 2', 'montecristo n2', 'montecristo No. 2', 'montecristo 2'])
      expect(search(text), text).toEqual(['MONTECRISTO N. 2']);
    // A prefix of a number: whole numbers first.
    expect(search('n2')).toEqual(['MONTECRISTO N. 2', 'EPICURE N°20']);
  });

  it('finds nothing for a word far from every name, and suggests the closest names', () => {
    expect(index.search({ text: 'zzyzx', category: null, page: 1 })).toMatchObject({
      total: 0,
      entries: [],
      suggestions: expect.any(Array),
    });
    expect(index.search({ text: 'zzyzx', category: null, page: 1 }).suggestions.length).toBeGreaterThan(0);
    expect(index.search({ text: 'garibaldi zzyzx', category: null, page: 1 })).toMatchObject({
      total: 0,
      suggestions: ['AMMEZZATI TOSCANO GARIBALDI', 'TOSCANO GARIBALDI'],
    });
    // In the category searched only.
    expect(index.search({ text: 'garibaldi zzyzx', category: 'cigarettes', page: 1 }).suggestions).toEqual([]);
  });

  it('finds a product by its tariff code and by an approved barcode, before any name', () => {
    expect(index.search({ text: '684', category: null, page: 1 })).toMatchObject({ matchedBy: 'code', total: 1 });
    expect(index.search({ text: '8001002006849', category: null, page: 1 }).entries[0]).toMatchObject({
      admCode: 684,
      announced: [{ pricePerPackCents: 500 }],
    });
    expect(index.search({ text: '8001002006849', category: 'cigarettes', page: 1 }).total).toBe(0);
  });

  it('finds a barcode typed in any of its GTIN lengths, as a scanner or a label spells it', () => {
    for (const text of ['012345678905', '0012345678905', '00012345678905'])
      expect(index.search({ text, category: null, page: 1 })).toMatchObject({ matchedBy: 'barcode', entries: [{ admCode: 7 }] });
  });

  it('filters by category and pages the results', () => {
    expect(names('', 'cigarettes')).toEqual(['CAFFÈ NERO']);
    const all = index.search({ text: 'serie', category: 'cigarillos', page: 3 });
    expect(all).toMatchObject({ total: 120, pages: 3 });
    expect(all.entries).toHaveLength(120 - 2 * RESULTS_PER_PAGE);
  });

  it('keeps withdrawn products the history knows, after those in the tariff', () => {
    expect(index.entry(999)).toMatchObject({ product: null, history: { steps: [{ from: '2023-10-31' }] } });
    expect(index).toMatchObject({ listed: 123, size: 124 });
  });
});
