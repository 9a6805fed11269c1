import { header, type HttpRequest, type HttpResponse } from '../../server/http.ts';
import { parseCookies } from '../../server/cookies.ts';
import { route, type Route, type RouteHandler } from '../../server/router.ts';
import { DATASET_CATEGORIES, type Category } from '../../source/categories.ts';
import type { CatalogueIndex, SearchQuery } from './catalogue-index.ts';
import { announcedPage, productPage, searchPage } from './catalogue-pages.ts';
import { ClientRateLimit } from '../client-rate-limit.ts';
import { messagePage } from '../pages.ts';
import { RenderCache, renderedPage, type Rendered } from '../render-cache.ts';
import { clientAddress, pageNumber, type SiteKit } from '../site-kit.ts';
import { parseTariffCode } from '../../source/tariff-code.ts';
import { searchTextSchema } from '../../inputs/input-schemas.ts';

/**
 * Product pages kept rendered: the few people look at most (about 10 kB each). Any other is
 * rendered when asked, within its latency goal (bench:site), rather than held: a crawler walking
 * every page cannot grow the service.
 */
const PRODUCT_PAGES_KEPT = 200;

const categoryOf = (value: string | null): Category | null | undefined =>
  value === null || value === '' ? null : DATASET_CATEGORIES.includes(value as Category) ? (value as Category) : undefined;

/**
 * The public catalogue (`/prodotti`, `/prodotti/<code>`) and the announced changes (`/variazioni`):
 * answered from the release in memory (no read of anyone's quota, no registry query, not even for
 * the session: a session cookie only makes the header link to the account), rendered once per
 * release and history, limited per client and minute with a 429 page.
 */
export function catalogueRoutes(site: SiteKit): Route[] {
  const { options } = site;
  const catalogue = options.catalogue;
  if (!catalogue) return [];
  const limit = new ClientRateLimit(catalogue.perClientPerMinute, options.now);
  const products = new RenderCache(PRODUCT_PAGES_KEPT);
  // A page is kept for one index (one release and history): a new one gets its pages rendered anew.
  const indexIds = new WeakMap<CatalogueIndex, number>();
  let indexesSeen = 0;
  const idOf = (index: CatalogueIndex) => indexIds.get(index) ?? indexIds.set(index, ++indexesSeen).get(index)!;
  let announced: { key: string; page: Rendered } | null = null;
  const signedIn = (request: HttpRequest) => parseCookies(header(request, 'cookie')).has(site.sessionCookie);
  // The header links to the account when signed in: a shared cache keeps the anonymous page only,
  // and keys it by the cookie (a signed-in page stays in the browser).
  const caching = (request: HttpRequest) =>
    signedIn(request)
      ? { 'cache-control': 'private, max-age=300', vary: 'Cookie' }
      : { 'cache-control': 'public, max-age=300', vary: 'Cookie' };

  const notFound = (title: string, text: string, request: HttpRequest) =>
    site.page(404, messagePage(title, text, { href: '/prodotti', label: 'Cerca un prodotto' }, 'error', signedIn(request)));
  /** Counted per client first; then the index for the release served now. */
  const limited =
    (
      next: (request: HttpRequest, index: CatalogueIndex, params: Record<string, string>) => Promise<HttpResponse> | HttpResponse,
    ): RouteHandler =>
    async ({ request, params }) => {
      if (!limit.allow(clientAddress(request, options.trustProxy ?? 0))) {
        options.metrics?.accessRefused('catalogue', 'rate_limited');
        return site.tooMany(limit.retryAfterSeconds(), { href: '/prodotti', label: 'Torna alla ricerca' });
      }
      return next(request, await catalogue.index(), params);
    };

  /** A permanent redirect to the one address of a page, keeping its query. */
  const canonical = (request: HttpRequest, path: string): HttpResponse => {
    const query = request.query.toString();
    return { status: 301, headers: { location: query ? `${path}?${query}` : path, 'cache-control': 'public, max-age=86400' }, body: null };
  };

  return [
    route(
      ['GET', 'HEAD'],
      '/prodotti',
      limited((request, index) => {
        const page = pageNumber(request.query.get('pagina'));
        const category = categoryOf(request.query.get('categoria'));
        const text = searchTextSchema.parse(request.query.get('q') ?? '');
        if (page === null || category === undefined) return notFound('Pagina non trovata', 'Questa ricerca non esiste.', request);
        const query: SearchQuery = { text, category, page };
        const result = index.search(query);
        if (page > result.pages) return notFound('Pagina non trovata', 'Questa pagina dei risultati non esiste.', request);
        return site.page(200, searchPage(index, query, result, signedIn(request)), caching(request));
      }),
    ),
    route(
      ['GET', 'HEAD'],
      '/prodotti/:code',
      limited((request, index, params) => {
        const admCode = parseTariffCode(params.code);
        const entry = admCode === null ? null : index.entry(admCode);
        if (!entry) return notFound('Prodotto non trovato', `Nessun prodotto ha il codice AAMS ${params.code}.`, request);
        // One address per product: /prodotti/000684 is /prodotti/684.
        if (params.code !== String(entry.admCode)) return canonical(request, `/prodotti/${entry.admCode}`);
        const who = signedIn(request);
        // The chart runs to the tariff's day, or to the day it was last seen once withdrawn.
        const until = entry.product ? (index.tariffDate ?? entry.product.effectiveFrom) : (entry.history?.steps.at(-1)?.lastSeen ?? '');
        const page = products.get(`${idOf(index)}|${entry.admCode}|${who}`, () => productPage(entry, until, who, index.historyUnavailable));
        return site.keptPage(request, page, caching(request));
      }),
    ),
    route(
      ['GET', 'HEAD'],
      '/variazioni',
      limited(async (request, index) => {
        const releases = await options.history.recent().catch(() => []);
        const who = signedIn(request);
        const key = `${idOf(index)}|${releases.map((r) => r.version).join(',')}|${who}`;
        if (announced?.key !== key) announced = { key, page: renderedPage(announcedPage(index, releases, who)) };
        return site.keptPage(request, announced.page, caching(request));
      }),
    ),
  ];
}
