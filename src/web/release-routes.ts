import { header, type HttpRequest, type HttpResponse } from '../server/http.ts';
import { route, type Route } from '../server/router.ts';
import { sha256Hex } from '../util/digests.ts';
import { messagePage } from './pages.ts';
import { releaseFeed } from './release-feed.ts';
import type { ReleaseNotes } from './release-notes.ts';
import { releaseDetailPage, releasesPage } from './release-pages.ts';
import type { SiteKit } from './site-kit.ts';

/** The public page of recent releases and their changes, one page per release, and the Atom feed: no session needed. */
export function releaseRoutes(site: SiteKit): Route[] {
  const { options } = site;
  /** The recent releases and whether the reader is signed in, or the 503 page when the bucket cannot be read. */
  const read = async (request: HttpRequest): Promise<{ releases: ReleaseNotes[]; signedIn: boolean } | HttpResponse> => {
    try {
      const releases = await options.history.recent();
      return { releases, signedIn: (await site.session(request)) !== null };
    } catch {
      const text = "L'elenco degli aggiornamenti non è disponibile in questo momento. Riprova tra qualche minuto.";
      return site.page(503, messagePage('Servizio non disponibile', text, { href: '/aggiornamenti', label: 'Riprova' }), {
        'retry-after': '60',
      });
    }
  };
  // Prices are public information: pages may be cached for a few minutes (privately when signed in).
  const caching = (signedIn: boolean) => ({ 'cache-control': signedIn ? 'private, max-age=60' : 'public, max-age=300' });

  return [
    route(['GET', 'HEAD'], '/aggiornamenti', async ({ request }) => {
      const found = await read(request);
      if ('status' in found) return found;
      return site.page(200, releasesPage(found.releases, found.signedIn), caching(found.signedIn));
    }),
    route(['GET', 'HEAD'], '/aggiornamenti.atom', async ({ request }) => {
      const found = await read(request);
      if ('status' in found) return found;
      const body = releaseFeed(found.releases, options.siteUrl(), options.now().toISOString());
      // Feed readers poll: an unchanged feed costs them a 304.
      const etag = `"${sha256Hex(body).slice(0, 32)}"`;
      const headers = { 'content-type': 'application/atom+xml; charset=utf-8', 'cache-control': 'public, max-age=300', etag };
      return header(request, 'if-none-match') === etag ? { status: 304, headers, body: null } : { status: 200, headers, body };
    }),
    route(['GET', 'HEAD'], '/aggiornamenti/:version', async ({ request, params }) => {
      const found = await read(request);
      if ('status' in found) return found;
      const notes = found.releases.find((candidate) => candidate.version === params.version);
      if (!notes) {
        const back = { href: '/aggiornamenti', label: 'Tutti gli aggiornamenti' };
        return site.page(
          404,
          messagePage('Rilascio non trovato', 'Questo rilascio non è tra quelli recenti.', back, 'error', found.signedIn),
        );
      }
      return site.page(200, releaseDetailPage(notes, found.signedIn), caching(found.signedIn));
    }),
  ];
}
