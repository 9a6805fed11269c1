import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { discoverDocuments } from './discover-documents.ts';

const PAGE = 'https://www.adm.gov.it/portale/monopoli/tabacchi/prezzi/prezzi_pubblico';
const fixture = (name: string) => readFileSync(new URL(`../../fixtures/adm/${name}`, import.meta.url), 'utf8');

describe('discoverDocuments', () => {
  it('finds every document the price page links, with absolute addresses, and the category its text suggests', () => {
    const links = discoverDocuments(fixture('prezzi_pubblico.html'), PAGE);
    expect(links.map((link) => link.hintCategory)).toEqual([
      'sigarette',
      'sigari',
      'sigaretti',
      'trinciati',
      'altri_tabacchi_da_fumo',
      'fiuto_mastico',
      'tabacchi_riscaldati',
      'liquidi_inalazione',
      null,
    ]);
    expect(links[1]!.url).toBe('https://www.adm.gov.it/portale/documents/20182/536133/Sigari.pdf/0f1c2d3e-4a5b-6c7d-8e9f-a0b1c2d3e4f5');
    // The minimum-price table is a PDF too: what it is, its content will tell.
    expect(links.at(-1)!.text).toBe('Tabella dei prezzi minimi');
  });

  it('takes links whose text is only a file name, and dates a link by the news item around it', () => {
    const html = `<main><article><h2>Tabacchi: variazione dei prezzi</h2>
      <p>Si comunica che con decorrenza dal 1° dicembre 2026 i prezzi dei prodotti elencati variano.</p>
      <p><a href="/docs/1-ANTEPRIMA.pdf">1-ANTEPRIMA.pdf</a></p></article>
      <article><h2>Listini</h2><p><a href="/docs/2-LIST-22-07-2026.pdf">2-LIST-22-07-2026.pdf</a>
      <a href="/docs/CDI+SIGARI.pdf">CDI+SIGARI.pdf</a></p></article>
      <a href="/portale/privacy">Privacy</a></main>`;
    const links = discoverDocuments(html, PAGE);
    expect(links.map((link) => [link.url.replace('https://www.adm.gov.it', ''), link.contextDates])).toEqual([
      ['/docs/1-ANTEPRIMA.pdf', ['2026-12-01']],
      ['/docs/2-LIST-22-07-2026.pdf', []],
      ['/docs/CDI+SIGARI.pdf', []],
    ]);
  });

  it('reads link texts with a date, a size or "Listino", relative addresses and <base>, each address once', () => {
    const html = `<base href="https://cdn.example/docs/"><a href="a/x?id=1">Listino Sigarette aggiornato al 01/11/2026 (pdf 300 kb)</a>
      <a href="/y#p">  LIQUIDI  da inalazione </a><a href="javascript:void 0">Sigari</a><a href="mailto:x@y">Sigaretti</a>
      <a href="nuovi.pdf">Nuovi prezzi dal 1° dicembre 2026</a><a href="nuovi.pdf">Nuovi prezzi dal 1° dicembre 2026</a>`;
    const links = discoverDocuments(html, PAGE, { allowedHosts: new Set(['www.adm.gov.it', 'cdn.example']) });
    expect(links.map((link) => [link.url, link.hintCategory])).toEqual([
      ['https://cdn.example/docs/a/x?id=1', 'sigarette'],
      ['https://cdn.example/y', 'liquidi_inalazione'],
      ['https://cdn.example/docs/nuovi.pdf', null],
    ]);
  });

  it('follows links only to allowed hosts, never to a private address, another host or an address with credentials', () => {
    const html = `<a href="/documents/Sigari.pdf">Sigari</a>
      <a href="http://10.255.255.1/metadata">Listino Sigarette</a><a href="//evil.example/x.pdf">Sigaretti</a>
      <a href="https://user:pass@www.adm.gov.it/x.pdf">Liquidi</a><a href="https://www.adm.gov.it.evil.example/y.pdf">Fiuto</a>`;
    expect(discoverDocuments(html, PAGE).map((link) => link.url)).toEqual(['https://www.adm.gov.it/documents/Sigari.pdf']);
  });

  it('reads a page of 20,000 notice links, and refuses one nested too deeply with a reason', () => {
    const many = `<ul>${Array.from({ length: 20_000 }, (_, i) => `<li><a href="/n/${i}.pdf">Nuovi prezzi</a></li>`).join('')}</ul>`;
    expect(discoverDocuments(many, PAGE)).toHaveLength(20_000);
    const nested = (depth: number) => `${'<div>'.repeat(depth)}<a href="/x.pdf">Sigari</a>${'</div>'.repeat(depth)}`;
    // 200,000 levels took 73 s to parse before the bound: now the page stops being read at level 1,001.
    expect(() => discoverDocuments(nested(200_000), PAGE)).toThrow(
      'the page nests more than 1000 elements deep: no page of the authority does',
    );
    expect(discoverDocuments(nested(999), PAGE).map((link) => link.url)).toEqual(['https://www.adm.gov.it/x.pdf']);
  });

  it('finds nothing on a page that no longer has the links', () => {
    expect(discoverDocuments('<html><body><p>Pagina in manutenzione</p><a href="/">Home</a></body></html>', PAGE)).toEqual([]);
  });
});
