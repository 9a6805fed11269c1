import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeNoticePdf, makePriceListPdf } from '../../fixtures/adm-pdf.ts';
import type { Product } from '../../src/dataset/model.ts';
import { openDatasetFile } from '../../src/release/read-release.ts';
import { AuthorityServer } from '../helpers/authority-server.ts';
import { readWithPdftotext } from '../helpers/pdftotext-reading.ts';
import { onDay, REPO, runCli } from '../helpers/run-cli.ts';
import { tempDir } from '../helpers/temp-dir.ts';

// The authority's site as it really is: a price page whose links are file names (nothing says
// which category a document is), a Campione d'Italia list among them, and a news item whose text
// alone dates the undated preview it links. The national lists are the real ones.
const REAL: Record<string, string> = {
  '1-LIST-10-10-2023.pdf': 'listino-sigarette-2023-10-10.pdf',
  '2-LIST-22-07-2026.pdf': 'listino-sigari-2026-07-22.pdf',
  '3-LIST-17-05-2023.pdf': 'listino-trinciati-2023-05-17.pdf',
  '4-LIST-03-10-2023.pdf': 'listino-altri-tabacchi-da-fumo-2023-10-03.pdf',
  '5-LIST-27-10-2023.pdf': 'listino-inalazione-senza-combustione-2023-10-27.pdf',
};
// No real list of these three categories is at hand: samples in the same layout.
const SAMPLES: Record<string, [string, string, [string, string, string, string, string]]> = {
  '6-LIST-01-11-2026.pdf': ['Sigaretti', '1/11/2026', ['93001', 'PICCOLO VANIGLIA', 'astuccio da 10 pezzi', '450,00', '4,50']],
  '7-LIST-01-11-2026.pdf': [
    'Tabacchi da fiuto e da mastico',
    '01 NOVEMBRE 2026',
    ['96001', 'NASO FINO SNUFF', 'scatoletta da 10 grammi', '500,00', '5,00'],
  ],
  '8-LIST-01-11-2026.pdf': ['Liquidi da inalazione', '01/11/2026', ['98001', 'NUVOLA MENTA 10 MG', 'flacone da 10 ml', '600,00', '6,00']],
};
const PRICE_PAGE = `<!DOCTYPE html><html lang="it"><body><main><h1>Prezzi di vendita al pubblico</h1><ul>
${[...Object.keys(REAL), ...Object.keys(SAMPLES), 'CDI+SIGARI.pdf'].map((file) => `<li><a href="/documents/${file}">${file}</a></li>`).join('\n')}
</ul><p><a href="/portale/privacy">Privacy</a></p></main></body></html>`;
const NEWS_PAGE = `<!DOCTYPE html><html lang="it"><body><main>
<article><h2>Tabacchi lavorati: variazione dei prezzi</h2>
<p>Si comunica che con decorrenza dal 1° dicembre 2026 i prezzi di vendita al pubblico dei prodotti elencati variano.</p>
<p><a href="/documents/1-ANTEPRIMA.pdf">1-ANTEPRIMA.pdf</a></p></article>
<article><h2>Archivio</h2><p>Listini precedenti, in vigore dal 1° gennaio 2026.</p></article>
</main></body></html>`;

let authority: AuthorityServer;
let dataDir: string;
let expectedCount: number;

beforeAll(async () => {
  authority = await new AuthorityServer().start();
  dataDir = await tempDir();
  const pdf = (body: Uint8Array | Buffer) => ({ body: Buffer.from(body), contentType: 'application/pdf', validators: true });
  authority.lists.set('/prezzi', { body: PRICE_PAGE, contentType: 'text/html; charset=utf-8' });
  authority.lists.set('/novita', { body: NEWS_PAGE, contentType: 'text/html; charset=utf-8' });
  for (const [file, real] of Object.entries(REAL))
    authority.lists.set(`/documents/${file}`, pdf(readFileSync(join(REPO, 'fixtures/adm', real))));
  for (const [file, [category, date, row]] of Object.entries(SAMPLES))
    authority.lists.set(`/documents/${file}`, pdf(await makePriceListPdf({ category, date, rows: [row] })));
  // Campione d'Italia: the same cigars at lower prices, one price column, a footnote.
  authority.lists.set(
    '/documents/CDI+SIGARI.pdf',
    pdf(
      await makePriceListPdf({
        title: "LISTINO CAMPIONE D'ITALIA AGGIORNATO AL",
        date: '3/04/2026',
        category: 'Sigari',
        referenceHeader: null,
        packPriceHeader: '€/conf.ne*',
        rows: [['21825', 'TOSCANO T', 'da 6 sigari', '', '30,00']],
        footnote: '* Il rivenditore è autorizzato ad arrotondare il prezzo al decimo di euro superiore.',
      }),
    ),
  );
  // The preview: one table a page, no date anywhere in it.
  authority.lists.set(
    '/documents/1-ANTEPRIMA.pdf',
    pdf(
      await makeNoticePdf({
        tablePerPage: true,
        tables: [
          { category: 'Sigarette', withCode: true, rows: [['7', '821 ARGENTO', 'astuccio da 20 pezzi', '240,00', '250,00', '5,00']] },
          { category: 'Sigari', withCode: false, rows: [[null, 'TOSCANO T', 'da 6 sigari', '1.500,00', '1.600,00', '48,00']] },
        ],
      }),
    ),
  );
  expectedCount = Object.values(REAL).reduce((sum, real) => sum + readWithPdftotext(join(REPO, 'fixtures/adm', real)).rows.length, 0) + 3;
});
afterAll(async () => {
  await authority.close();
});

const release = (date: string) =>
  runCli(['release', '--data-dir', dataDir, '--bucket', join(dataDir, 'bucket'), '--json'], {
    env: { TARIFF_SOURCE_PAGES: `${authority.url('/prezzi')} ${authority.url('/novita')}`, ...onDay(date) },
  });
const products = async (version: string): Promise<Map<number, Product>> => {
  const dataset = await openDatasetFile('json', readFileSync(join(dataDir, 'bucket', 'releases', version, 'dataset.json.gz')));
  return new Map(dataset.products.map((p) => [p.admCode, p]));
};

describe("tariff release on the authority's site, whose links are file names", () => {
  it('publishes every list whole, Campione nowhere, and the undated preview only from the day its news item states', async () => {
    const before = await release('2026-11-30');
    expect(before.stderr).toBe('');
    expect(before.status).toBe(0);
    const summary = JSON.parse(before.stdout);
    expect(summary).toMatchObject({ status: 'published', version: '20261101.1', duplicates: [] });
    const byUrl = (file: string) => summary.fetch.find((r: { url: string }) => r.url.endsWith(`/documents/${file}`));
    expect(byUrl('2-LIST-22-07-2026.pdf')).toMatchObject({ label: 'cigars list', status: 'changed' });
    expect(byUrl('5-LIST-27-10-2023.pdf')).toMatchObject({ label: 'heated_tobacco list', status: 'changed' });
    // Campione's list is an expected part of the page: said, never a failure.
    expect(byUrl('CDI+SIGARI.pdf')).toMatchObject({
      status: 'ignored',
      error: expect.stringMatching(/Campione d'Italia list \(Sigari, 2026-04-03\)/),
    });
    expect(byUrl('1-ANTEPRIMA.pdf')).toMatchObject({ label: 'notice', effectiveDates: [{ date: '2026-12-01', when: 'future' }] });

    const first = await products('20261101.1');
    expect(first.size).toBe(expectedCount);
    // National prices everywhere: Campione's 30,00 for TOSCANO T is in no release.
    expect(first.get(21825)).toMatchObject({ pricePerPackCents: 4500, pricePerKgCents: 150000, referenceUnit: 'conventional_kg' });
    expect(first.get(7)).toMatchObject({ pricePerPackCents: 480, effectiveFrom: '2023-10-10' });
    // Heated tobacco is priced per 1,000 pieces, never per kilogram.
    expect(first.get(20697)).toMatchObject({ referencePriceCents: 22500, referenceUnit: '1000_pieces', pricePerKgCents: null });

    const onTheDay = await release('2026-12-01');
    expect(onTheDay.status).toBe(0);
    expect(JSON.parse(onTheDay.stdout)).toMatchObject({ status: 'published', version: '20261201.1' });
    const second = await products('20261201.1');
    expect(second.size).toBe(expectedCount);
    expect(second.get(7)).toMatchObject({ pricePerPackCents: 500, referencePriceCents: 25000, effectiveFrom: '2026-12-01' });
    expect(second.get(21825)).toMatchObject({ pricePerPackCents: 4800, pricePerKgCents: 160000, effectiveFrom: '2026-12-01' });
    // Every unchanged document cost a conditional request.
    const documents = authority.requests.filter((r) => r.path.startsWith('/documents/'));
    expect(documents.slice(-9).every((r) => r.headers['if-none-match'])).toBe(true);
  });
});
