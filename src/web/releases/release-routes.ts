import type { HttpRequest, HttpResponse } from '../../server/http.ts';
import { route, type Route } from '../../server/router.ts';
import { messagePage } from '../pages.ts';
import type { ReleaseNotes } from './release-notes.ts';
import { detailPageCount, releaseDetailPage, releasesPage, signingKeysPage } from './release-pages.ts';
import { RenderCache, renderedPage } from '../render-cache.ts';
import { pageNumber, type SiteKit } from '../site-kit.ts';

/** Pages kept rendered: every page of the recent releases, for both kinds of visitor, fits. */
const RENDERED_PAGES_KEPT = 200;

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
  // Rendered once per what they show (a version's page never changes), then answered from memory or with a 304.
  const rendered = new RenderCache(RENDERED_PAGES_KEPT);
  const shown = (releases: ReleaseNotes[]) => releases.map((notes) => notes.version).join(',');

  return [
    route(['GET', 'HEAD'], '/aggiornamenti', async ({ request }) => {
      const found = await read(request);
      if ('status' in found) return found;
      const page = rendered.get(`list|${shown(found.releases)}|${found.signedIn}`, () => releasesPage(found.releases, found.signedIn));
      return site.keptPage(request, page, caching(found.signedIn));
    }),
    route(['GET', 'HEAD'], '/aggiornamenti.atom', async ({ request }) => {
      const found = await read(request);
      if ('status' in found) return found;
      // The XML builder is loaded by the first feed asked for, not by every service.
      const { releaseFeed } = await import('./release-feed.ts');
      // With no release yet the feed is dated now: it is not kept.
      const render = () => releaseFeed(found.releases, options.siteUrl(), options.now().toISOString());
      const feed =
        found.releases.length > 0 ? rendered.get(`feed|${shown(found.releases)}|${options.siteUrl()}`, render) : renderedPage(render());
      // Feed readers poll: an unchanged feed costs them a 304.
      return site.keptPage(request, feed, {
        'content-type': 'application/atom+xml; charset=utf-8',
        'cache-control': 'public, max-age=300',
      });
    }),
    route(['GET', 'HEAD'], '/chiavi-di-firma', async ({ request }) => {
      const signedIn = (await site.session(request)) !== null;
      const list = options.signingKeys?.() ?? { keys: [] };
      return site.page(200, signingKeysPage(list, options.now(), signedIn), caching(signedIn));
    }),
    route(['GET', 'HEAD'], '/aggiornamenti/:version', async ({ request, params }) => {
      const found = await read(request);
      if ('status' in found) return found;
      const notes = found.releases.find((candidate) => candidate.version === params.version);
      const number = pageNumber(request.query.get('pagina'));
      if (!notes || number === null || number > detailPageCount(notes)) {
        const back = { href: '/aggiornamenti', label: 'Tutti gli aggiornamenti' };
        return site.page(
          404,
          messagePage('Rilascio non trovato', 'Questo rilascio non è tra quelli recenti.', back, 'error', found.signedIn),
        );
      }
      const page = rendered.get(`release|${notes.version}|${number}|${found.signedIn}`, () =>
        releaseDetailPage(notes, found.signedIn, number),
      );
      return site.keptPage(request, page, caching(found.signedIn));
    }),
  ];
}
