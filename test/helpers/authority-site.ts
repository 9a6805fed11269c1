import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeNoticePdf, makePriceListPdf } from '../../fixtures/adm-pdf.ts';
import { AuthorityServer } from './authority-server.ts';
import { readWithPdftotext } from './pdftotext-reading.ts';
import { onDay, REPO, runCli } from './run-cli.ts';

// The authority's site as it really is: a price page whose links are file names (nothing says
// which category a document is), a Campione d'Italia list among them, and a news item whose text
// alone dates the undated preview it links. The national lists are the real ones.
export const REAL: Record<string, string> = {
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

/**
 * The stand-in authority serving the price page, the news page and every document above, started;
 * `expectedCount` is how many products the lists hold, read independently with pdftotext.
 */
export async function standInAuthoritySite(): Promise<{ authority: AuthorityServer; expectedCount: number }> {
  const authority = await new AuthorityServer().start();
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
  const expectedCount =
    Object.values(REAL).reduce((sum, real) => sum + readWithPdftotext(join(REPO, 'fixtures/adm', real)).rows.length, 0) + 3;
  return { authority, expectedCount };
}

/** `tariff release --json` against the stand-in's two pages, on that day, into the data dir's bucket. */
export const releaseFromSite = (
  authority: AuthorityServer,
  dataDir: string,
  date: string,
  extra: string[] = [],
  env: Record<string, string> = {},
) =>
  runCli(['release', '--data-dir', dataDir, '--bucket', join(dataDir, 'bucket'), '--json', ...extra], {
    env: { TARIFF_SOURCE_PAGES: `${authority.url('/prezzi')} ${authority.url('/novita')}`, ...onDay(date), ...env },
  });
