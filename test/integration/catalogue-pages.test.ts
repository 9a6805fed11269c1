import { describe, expect, it } from 'vitest';
import type { Change, Dataset, Product } from '../../src/dataset/model.ts';
import { emptyHistory, recordRelease } from '../../src/history/price-history.ts';
import type { Registry } from '../../src/registry/registry.ts';
import type { HttpRequest } from '../../src/server/http.ts';
import { CatalogueIndex } from '../../src/web/catalogue/catalogue-index.ts';
import { createWebsite } from '../../src/web/website.ts';

const product = (admCode: number, name: string, pricePerPackCents: number): Product => ({
  admCode,
  name,
  category: 'cigarettes',
  pack: 'astuccio da 20 pezzi',
  packQuantity: 20,
  packUnit: 'pieces',
  pricePerKgCents: pricePerPackCents * 50,
  pricePerPackCents,
  effectiveFrom: '2026-11-01',
  referencePriceCents: pricePerPackCents * 50,
  referenceUnit: 'conventional_kg',
});
const rows: Pick<Dataset, 'version' | 'tariffDate' | 'products' | 'barcodes' | 'announced'> = {
  version: '20261101.1',
  tariffDate: '2026-11-01',
  products: [product(1001, 'AURORA ROSSA', 600), product(1002, 'AURORA BLU', 620)],
  barcodes: [],
  announced: [],
};

/**
 * The website with a catalogue and a registry that fails the test if touched: the public pages
 * answer from memory (no registry query, no quota), with a clock the test moves.
 */
function setUp(perClientPerMinute = 100) {
  let now = new Date('2026-11-25T10:00:00Z');
  const touched: string[] = [];
  const registry = new Proxy({} as Registry, {
    get: (_, name) => () => {
      touched.push(String(name));
      throw new Error(`the registry was asked ${String(name)}`);
    },
  });
  const refused: string[] = [];
  // AURORA VERDE was in the release before and is withdrawn from this one's date.
  const before = recordRelease(emptyHistory(), {
    ...rows,
    version: '20261001.1',
    tariffDate: '2026-10-01',
    products: [...rows.products, product(1003, 'AURORA VERDE', 580)],
    changes: [],
  });
  const history = recordRelease(before, { ...rows, changes: [{ kind: 'product_removed', admCode: 1003 } as Change] });
  const index = CatalogueIndex.of(rows, history);
  const site = createWebsite({
    registry,
    mailer: { description: 'none', send: async () => {} },
    now: () => now,
    siteUrl: () => 'http://127.0.0.1:8080',
    signInTtlMs: 60_000,
    sessionTtlMs: 60_000,
    limits: { perAddress: 1, perClient: 1 },
    log: () => {},
    history: { recent: async () => [] },
    catalogue: { index: async () => index, perClientPerMinute },
    metrics: { accessRefused: (purpose, reason) => void refused.push(`${purpose} ${reason}`) },
  });
  const call = async (path: string, headers: Record<string, string> = {}, remoteAddress = '127.0.0.1') => {
    const [pathname, query = ''] = path.split('?');
    const request: HttpRequest = {
      method: 'GET',
      path: pathname!,
      query: new URLSearchParams(query),
      remoteAddress,
      headers,
      body: async () => Buffer.alloc(0),
    };
    const response = await site(request);
    return { ...response, text: String(response.body ?? '') };
  };
  return { call, touched, refused, setNow: (iso: string) => (now = new Date(iso)) };
}

describe('the public catalogue pages', () => {
  it('answer searches, product pages and announced changes from memory, without asking the registry', async () => {
    const { call, touched } = setUp();
    const search = await call('/prodotti?q=aurora&categoria=cigarettes', { cookie: 'sessione=whatever' });
    expect(search.status).toBe(200);
    expect(search.text).toContain('3 prodotti per «aurora»');
    // A session cookie only points the header at the account: it is not looked up.
    expect(search.text).toContain('href="/account"');
    const page = await call('/prodotti/1001');
    expect(page).toMatchObject({ status: 200, headers: { 'cache-control': 'public, max-age=300', vary: 'Cookie' } });
    // Signed in, the page differs (its header links to the account): kept by the browser alone.
    expect((await call('/prodotti/1001', { cookie: 'sessione=whatever' })).headers).toMatchObject({
      'cache-control': 'private, max-age=300',
      vary: 'Cookie',
    });
    expect(search.headers).toMatchObject({ 'cache-control': 'private, max-age=300', vary: 'Cookie' });
    // An amount is written with a no-break space before its sign: they keep to one line.
    expect(page.text).toContain('<strong class="price">6,00\u00a0€</strong>');
    expect(await call('/prodotti/1001', { 'if-none-match': page.headers.etag! })).toMatchObject({ status: 304, body: null });
    expect((await call('/variazioni')).text).toContain('Nessuna variazione annunciata');
    expect(touched).toEqual([]);
  });

  it('keeps the page of a withdrawn product, marked as withdrawn since the release that dropped it', async () => {
    const { call } = setUp();
    const page = await call('/prodotti/1003');
    expect(page.status).toBe(200);
    expect(page.text).toContain('Questo prodotto non è più nella tariffa dal 1 novembre 2026. Ultimo prezzo: 5,80\u00a0€');
    expect((await call('/prodotti?q=aurora')).text).toMatch(/AURORA VERDE.*ritirato/s);
  });

  it('says when only similar names matched, and suggests names when none did', async () => {
    const { call } = setUp();
    expect((await call('/prodotti?q=auorra')).text).toContain(
      'Nessun nome contiene «auorra» così come è scritto: 3 prodotti dal nome simile',
    );
    const none = (await call('/prodotti?q=zzyzx')).text;
    expect(none).toContain('Nessun prodotto trovato per «zzyzx». Forse cercavi: <a href="/prodotti?q=');
    expect(none).not.toContain('<table');
  });

  it('sends a product’s other addresses to its one address, permanently', async () => {
    const { call } = setUp();
    expect(await call('/prodotti/0001001')).toMatchObject({ status: 301, headers: { location: '/prodotti/1001' } });
    expect(await call('/prodotti/000001001?x=1')).toMatchObject({ status: 301, headers: { location: '/prodotti/1001?x=1' } });
    // Past nine digits it is no tariff code (source/tariff-code.ts), as on every surface.
    expect((await call('/prodotti/000000001001')).status).toBe(404);
  });

  it('answers 404 for a code, a category or a page that does not exist', async () => {
    const { call } = setUp();
    expect((await call('/prodotti/4242')).status).toBe(404);
    expect((await call('/prodotti/abc')).status).toBe(404);
    expect((await call('/prodotti?categoria=pipes')).status).toBe(404);
    expect((await call('/prodotti?q=aurora&pagina=2')).status).toBe(404);
    expect((await call('/prodotti?pagina=0')).status).toBe(404);
  });

  it('limits each client per minute with a 429 page, counted for /metrics, and lets it in again the next minute', async () => {
    const { call, refused, setNow } = setUp(2);
    expect((await call('/prodotti')).status).toBe(200);
    expect((await call('/prodotti/1001')).status).toBe(200);
    const over = await call('/variazioni');
    expect(over).toMatchObject({ status: 429, headers: { 'retry-after': '60' } });
    expect(over.text).toContain('Riprova tra un minuto');
    expect(refused).toEqual(['catalogue rate_limited']);
    expect((await call('/prodotti', {}, '127.0.0.2')).status).toBe(200);
    setNow('2026-11-25T10:01:00Z');
    expect((await call('/prodotti')).status).toBe(200);
  });
});
