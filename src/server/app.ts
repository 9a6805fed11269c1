import { fingerprintOf, looksLikeApiKey } from '../registry/api-key.ts';
import { READ_LIMIT, type Principal, type Registry } from '../registry/registry.ts';
import type { Format } from '../release/manifest.ts';
import { formatWithOffset } from '../util/dates.ts';
import type { CurrentRelease } from './current-release.ts';
import { header, json, type Handler, type HttpRequest, type HttpResponse } from './http.ts';
import { httpErrors } from './http-errors.ts';
import { dayWindow, hourWindow, rateLimitHeaders, secondsUntil } from './quota-window.ts';

/** The `<product>` part of download file names: `tariffa-tabacchi-20261101.1.json.gz`. */
export const PRODUCT_SLUG = 'tariffa-tabacchi';

export interface AppOptions {
  registry: Registry;
  release: CurrentRelease;
  now: () => Date;
}

/** What an authenticated route receives. */
interface Context {
  request: HttpRequest;
  principal: Principal;
  now: Date;
  /** X-RateLimit-* of the read counter after this call. */
  rateHeaders: Record<string, string>;
}

type Route = { method: string; path: string; run: (ctx: Context) => Promise<HttpResponse> };

/**
 * The HTTP service: `/healthz` outside /v1, and the /v1 routes of interface spec section 4.
 * Order for a /v1 GET: route match (unknown path 404, wrong method 405, both free), then the key
 * (401), then one read from the account's daily counter, checked and incremented in one atomic
 * step (429 when spent), then the route.
 */
export function createApp(options: AppOptions): Handler {
  const { registry, release, now: clock } = options;

  const download = (format: Format) => async ({ request, rateHeaders }: Context): Promise<HttpResponse> => {
    const current = release.current;
    if (!current) return httpErrors.noRelease(rateHeaders);
    const entry = current.manifest.files[format];
    const etag = `"${entry.sha256}"`;
    const headers = { ...rateHeaders, etag, 'cache-control': 'private, no-cache' };
    if (matchesEtag(header(request, 'if-none-match'), etag)) return { status: 304, headers, body: null };
    const file = await release.file(current, format);
    if (!file) return httpErrors.releaseUnavailable(rateHeaders);
    return {
      status: 200,
      headers: {
        ...headers,
        'content-type': 'application/gzip',
        'content-length': String(file.size),
        'content-disposition': `attachment; filename="${PRODUCT_SLUG}-${file.version}.${format}.gz"`,
      },
      body: file.body,
    };
  };

  const routes: Route[] = [
    {
      method: 'GET',
      path: '/v1/version',
      run: async ({ rateHeaders }) => {
        const current = release.current;
        if (!current) return httpErrors.noRelease(rateHeaders);
        return { status: 200, headers: { ...rateHeaders, 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' }, body: current.manifestBody };
      },
    },
    { method: 'GET', path: '/v1/dataset.json.gz', run: download('json') },
    { method: 'GET', path: '/v1/dataset.sqlite.gz', run: download('sqlite') },
    { method: 'GET', path: '/v1/dataset.docdb.gz', run: download('docdb') },
    {
      method: 'GET',
      path: '/v1/me',
      run: async ({ principal, now, rateHeaders }) => {
        const { account } = principal;
        const day = dayWindow(now);
        const hour = hourWindow(now);
        const [reads, submits] = await Promise.all([registry.usage(account.id, 'read', day.periodStart), registry.usage(account.id, 'submit', hour.periodStart)]);
        const counter = (period: string, limit: number, used: number, resetsAt: Date) => ({
          period, limit, used, remaining: Math.max(0, limit - used), resetsAt: formatWithOffset(resetsAt),
        });
        return json(200, {
          email: account.email,
          type: account.type,
          limits: { read: counter('day', READ_LIMIT, reads, day.resetsAt), submit: counter('hour', account.submitLimit, submits, hour.resetsAt) },
        }, rateHeaders);
      },
    },
  ];
  const byPath = new Map<string, Route[]>();
  for (const route of routes) byPath.set(route.path, [...(byPath.get(route.path) ?? []), route]);

  return async (request) => {
    if (request.path === '/healthz') {
      if (request.method !== 'GET' && request.method !== 'HEAD') return httpErrors.methodNotAllowed(['GET', 'HEAD']);
      return json(200, { status: 'ok', release: release.current?.manifest.version ?? null });
    }
    const candidates = byPath.get(request.path);
    if (!candidates) return httpErrors.notFound();
    const route = candidates.find((candidate) => candidate.method === request.method);
    if (!route) return httpErrors.methodNotAllowed(candidates.map((candidate) => candidate.method));

    const now = clock();
    const window = dayWindow(now);
    const principal = await authenticate(registry, request, now, { periodStart: window.periodStart, limit: READ_LIMIT });
    if (!principal) return httpErrors.invalidApiKey();

    const read = principal.read!;
    const rateHeaders = rateLimitHeaders(READ_LIMIT, read.used, window.resetsAt);
    const response = read.allowed ? await route.run({ request, principal, now, rateHeaders }) : httpErrors.rateLimited(secondsUntil(window.resetsAt, now), rateHeaders);
    response.accountId = principal.account.id;
    return response;
  };
}

/** The key from `Authorization: Bearer` (preferred) or `X-Api-Key`; any failure is the same null. */
async function authenticate(registry: Registry, request: HttpRequest, now: Date, read: { periodStart: string; limit: number }) {
  const authorization = header(request, 'authorization');
  const bearer = authorization ? /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1] : undefined;
  const key = bearer ?? header(request, 'x-api-key')?.trim();
  if (!key || !looksLikeApiKey(key)) return null;
  // The lookup is by SHA-256 of a 256-bit secret: timing reveals nothing usable about a key.
  return registry.authenticate(fingerprintOf(key), now, read);
}

/** If-None-Match holds the ETag, `*`, or a list including it (weak or strong). */
export function matchesEtag(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.split(',').some((candidate) => {
    const value = candidate.trim();
    return value === '*' || value === etag || value === `W/${etag}`;
  });
}
