import { XMLParser } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { serveRealReleases } from '../helpers/real-releases.ts';
import { runCli } from '../helpers/run-cli.ts';
import { waitFor } from '../helpers/wait-for.ts';

// The authority's real cigar list, then a notice raising one of its prices and cutting another.
const stand = serveRealReleases({ TARIFF_SITE_URL: 'https://tariffa.example.it', TARIFF_HISTORY_REFRESH_SECONDS: '1' });
const cli = (args: string[]) => runCli([...args, '--data-dir', stand.dataDir]);

describe('the public page of recent releases', () => {
  it('lists the releases newest first with their price rises and cuts, in Italian, without signing in', async () => {
    const response = await fetch(`${stand.service.url}/aggiornamenti`);
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('public, max-age=300');
    const page = await response.text();
    expect(page.indexOf('Tariffa in vigore dal 1 agosto 2026')).toBeLessThan(page.indexOf('Tariffa in vigore dal 22 luglio 2026'));
    expect(page).toContain('Rispetto alla versione 20260722.1: 1 aumento di prezzo, 1 riduzione di prezzo.');
    expect(page).toMatch(
      /<strong>2012 BY OSCAR VALLADARES COROJO ROBUSTO<\/strong> <span class="muted">\(cod\. 20663, da 20 pezzi\)<\/span>: 240,00\u00a0€ → <strong>250,00\u00a0€<\/strong> <span class="up">\+10,00\u00a0€<\/span>/,
    );
    expect(page).toMatch(
      /ADVENTURA THE EXPLORER CORONA GORDA.*199,50\u00a0€ → <strong>190,00\u00a0€<\/strong> <span class="down">−9,50\u00a0€<\/span>/,
    );
    expect(page).toContain('Primo rilascio: nessun rilascio precedente con cui confrontarlo.');
    expect(page).toContain('2821 prodotti');

    const detail = await fetch(`${stand.service.url}/aggiornamenti/20260801.1`);
    expect(detail.status).toBe(200);
    expect(await detail.text()).toContain('<h1>Tariffa in vigore dal 1 agosto 2026</h1>');
    expect((await fetch(`${stand.service.url}/aggiornamenti/20250101.1`)).status).toBe(404);
    expect((await fetch(`${stand.service.url}/aggiornamenti`, { method: 'POST' })).status).toBe(405);
  });

  it('has an Atom feed of the releases that a reader polls with a conditional request', async () => {
    const response = await fetch(`${stand.service.url}/aggiornamenti.atom`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/atom+xml; charset=utf-8');
    const text = await response.text();
    const { feed } = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@' }).parse(text);
    expect(feed['@xmlns']).toBe('http://www.w3.org/2005/Atom');
    expect(feed.id).toBe('https://tariffa.example.it/aggiornamenti');
    expect(feed.entry.map((entry: { id: string }) => entry.id)).toEqual([
      'https://tariffa.example.it/aggiornamenti/20260801.1',
      'https://tariffa.example.it/aggiornamenti/20260722.1',
    ]);
    expect(feed.updated).toBe(feed.entry[0].updated);
    expect(feed.entry[0].summary).toBe('1 aumento di prezzo, 1 riduzione di prezzo.');
    // The entry's HTML travels escaped, as Atom's type="html" wants.
    expect(text).toContain('&lt;strong&gt;2012 BY OSCAR VALLADARES COROJO ROBUSTO&lt;/strong&gt;');
    const again = await fetch(`${stand.service.url}/aggiornamenti.atom`, { headers: { 'if-none-match': response.headers.get('etag')! } });
    expect(again.status).toBe(304);
  });

  it('follows the line of releases clients lived through: a rolled-back release leaves the page', async () => {
    const rolled = await cli(['rollback', '20260722.1']);
    expect(rolled.stderr).toBe('');
    expect(rolled.status).toBe(0);
    let page = '';
    await waitFor(async () => {
      page = await (await fetch(`${stand.service.url}/aggiornamenti`)).text();
      return !page.includes('1 agosto 2026');
    }, 'the page to follow the rollback');
    expect(page).toContain('Tariffa in vigore dal 22 luglio 2026');
    const { feed } = new XMLParser().parse(await (await fetch(`${stand.service.url}/aggiornamenti.atom`)).text());
    expect(feed.entry.id).toBe('https://tariffa.example.it/aggiornamenti/20260722.1');
  });
});
