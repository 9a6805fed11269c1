import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { discoverDocuments } from './discover-documents.ts';

const PAGE = 'https://www.adm.gov.it/portale/monopoli/tabacchi/prezzi/prezzi_pubblico';
const fixture = (name: string) => readFileSync(new URL(`../../fixtures/adm/${name}`, import.meta.url), 'utf8');

describe('discoverDocuments', () => {
  it("finds the eight category lists of the price page by their links' text, with absolute addresses", () => {
    const { lists, notices } = discoverDocuments(fixture('prezzi_pubblico.html'), PAGE);
    expect([...lists.keys()].sort()).toEqual([
      'altri_tabacchi_da_fumo',
      'fiuto_mastico',
      'liquidi_inalazione',
      'sigarette',
      'sigaretti',
      'sigari',
      'tabacchi_riscaldati',
      'trinciati',
    ]);
    expect(lists.get('sigari')!.url).toBe(
      'https://www.adm.gov.it/portale/documents/20182/536133/Sigari.pdf/0f1c2d3e-4a5b-6c7d-8e9f-a0b1c2d3e4f5',
    );
    expect(notices).toEqual([]);
  });

  it('finds the price-change notices, and not the other documents, on the notices page', () => {
    const { lists, notices } = discoverDocuments(fixture('novita_accise.html'), PAGE);
    expect(lists.size).toBe(0);
    expect(notices.map((n) => n.text)).toEqual(['Variazione dei prezzi di vendita al pubblico con decorrenza 1° dicembre 2026']);
  });

  it('reads link texts with a date, a size or "Listino", relative addresses and <base>', () => {
    const html = `<base href="https://cdn.example/docs/"><a href="a/x?id=1">Listino Sigarette aggiornato al 01/11/2026 (pdf 300 kb)</a>
      <a href="/y#p">  LIQUIDI  da inalazione </a><a href="javascript:void 0">Sigari</a><a href="mailto:x@y">Sigaretti</a>
      <a href="nuovi.pdf">Nuovi prezzi dal 1° dicembre 2026</a><a href="nuovi.pdf">Nuovi prezzi dal 1° dicembre 2026</a>`;
    const { lists, notices } = discoverDocuments(html, PAGE);
    expect(Object.fromEntries([...lists].map(([c, l]) => [c, l.url]))).toEqual({
      sigarette: 'https://cdn.example/docs/a/x?id=1',
      liquidi_inalazione: 'https://cdn.example/y',
    });
    expect(notices.map((n) => n.url)).toEqual(['https://cdn.example/docs/nuovi.pdf']);
  });

  it('finds nothing on a page that no longer has the links', () => {
    const { lists, notices } = discoverDocuments('<html><body><p>Pagina in manutenzione</p><a href="/">Home</a></body></html>', PAGE);
    expect(lists.size + notices.length).toBe(0);
  });
});
