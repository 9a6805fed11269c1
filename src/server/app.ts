import { readFileSync } from 'node:fs';
import { DEFAULT_RULES, type StatusRules } from '../barcodes/status-rules.ts';
import { checkItem } from '../barcodes/validate-item.ts';
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
export const MAX_BATCH = 500;
export const MAX_PAGE = 1000;
export const DEFAULT_PAGE = 500;

export interface AppOptions {
  registry: Registry;
  release: CurrentRelease;
  now: () => Date;
  rules?: StatusRules;
}

/** What an authenticated route receives. */
interface Context<Input> {
  request: HttpRequest;
  principal: Principal;
  now: Date;
  input: Input;
  /** X-RateLimit-* of the read counter after this call (GET routes). */
  rateHeaders: Record<string, string>;
}

/** Checks a request's parameters or body before any quota is spent: a bad request costs nothing. */
type Parse<Input> = (
  request: HttpRequest,
) => Promise<{ ok: true; input: Input } | { ok: false; response: (rateHeaders: Record<string, string>) => HttpResponse }>;

interface Route<Input = undefined> {
  method: 'GET' | 'POST';
  path: string;
  parse?: Parse<Input>;
  run: (ctx: Context<Input>) => Promise<HttpResponse>;
}

const route = <Input>(definition: Route<Input>) => definition as unknown as Route<unknown>;

/**
 * The HTTP service: `/healthz` outside /v1, and the /v1 routes of interface spec section 4.
 * Order: route match (unknown path 404, wrong method 405, both free), the key (401), the request's
 * parameters or body (400, free), then the quota and the call. A GET takes one read from the
 * account's daily counter in the same transaction as the key lookup (429 when spent); POST
 * /v1/barcodes takes one submission per item, atomically with recording the batch.
 */
/** The paths the API answers (no session, JSON errors); every other path is the website's. */
export const isApiPath = (path: string): boolean =>
  path === '/v1' || path.startsWith('/v1/') || path === '/healthz' || path === '/openapi.json';

/** The machine-readable description of this API (docs/openapi.json), served as kept in the repository. */
const OPENAPI = readFileSync(new URL('../../docs/openapi.json', import.meta.url));

export function createApp(options: AppOptions): Handler {
  const { registry, release, now: clock } = options;
  const rules = options.rules ?? DEFAULT_RULES;

  const download =
    (format: Format) =>
    async ({ request, rateHeaders }: Context<unknown>): Promise<HttpResponse> => {
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

  const routes: Route<unknown>[] = [
    route({
      method: 'GET',
      path: '/v1/version',
      run: async ({ rateHeaders }) => {
        const current = release.current;
        if (!current) return httpErrors.noRelease(rateHeaders);
        return {
          status: 200,
          headers: { ...rateHeaders, 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' },
          body: current.manifestBody,
        };
      },
    }),
    route({ method: 'GET', path: '/v1/dataset.json.gz', run: download('json') }),
    route({ method: 'GET', path: '/v1/dataset.sqlite.gz', run: download('sqlite') }),
    route({ method: 'GET', path: '/v1/dataset.docdb.gz', run: download('docdb') }),
    route({
      method: 'GET',
      path: '/v1/me',
      run: async ({ principal, now, rateHeaders }) => {
        const { account } = principal;
        const day = dayWindow(now);
        const hour = hourWindow(now);
        const [reads, submits] = await Promise.all([
          registry.usage(account.id, 'read', day.periodStart),
          registry.usage(account.id, 'submit', hour.periodStart),
        ]);
        const counter = (period: string, limit: number, used: number, resetsAt: Date) => ({
          period,
          limit,
          used,
          remaining: Math.max(0, limit - used),
          resetsAt: formatWithOffset(resetsAt),
        });
        return json(
          200,
          {
            email: account.email,
            type: account.type,
            limits: {
              read: counter('day', READ_LIMIT, reads, day.resetsAt),
              submit: counter('hour', account.submitLimit, submits, hour.resetsAt),
            },
          },
          rateHeaders,
        );
      },
    }),
    route<{ limit: number; offset: number }>({
      method: 'GET',
      path: '/v1/my-submissions',
      parse: async (request) => {
        const limit = pageParameter(request.query.get('limit'), DEFAULT_PAGE, 1, MAX_PAGE);
        const offset = pageParameter(request.query.get('offset'), 0, 0, Number.MAX_SAFE_INTEGER);
        if (limit === null)
          return {
            ok: false,
            response: (headers) =>
              httpErrors.badRequest('invalid_parameter', `limit deve essere un intero da 1 a ${MAX_PAGE}.`, headers, {
                parameter: 'limit',
              }),
          };
        if (offset === null)
          return {
            ok: false,
            response: (headers) =>
              httpErrors.badRequest('invalid_parameter', 'offset deve essere un intero non negativo.', headers, { parameter: 'offset' }),
          };
        return { ok: true, input: { limit, offset } };
      },
      run: async ({ principal, input, rateHeaders }) =>
        json(200, { items: await registry.mySubmissions(principal.account.id, input.limit, input.offset) }, rateHeaders),
    }),
    route<unknown[]>({
      method: 'POST',
      path: '/v1/barcodes',
      parse: parseBatch,
      run: async ({ principal, now, input }) => {
        const { account } = principal;
        const hour = hourWindow(now);
        const admCodes = release.current?.admCodes;
        const checks = input.map((item) => checkItem(item, account.type, (code) => admCodes?.has(code) ?? false));
        const outcome = await registry.submitBarcodes({ account, periodStart: hour.periodStart, checks, rules }, now);
        const headers = rateLimitHeaders(account.submitLimit, outcome.used, hour.resetsAt);
        if (!outcome.allowed) {
          return httpErrors.rateLimited(secondsUntil(hour.resetsAt, now), headers, {
            limit: account.submitLimit,
            remaining: Math.max(0, account.submitLimit - outcome.used),
          });
        }
        const count = (outcomeName: string) => outcome.results.filter((result) => result.outcome === outcomeName).length;
        return json(
          200,
          { accepted: count('accepted'), unchanged: count('unchanged'), rejected: count('rejected'), results: outcome.results },
          headers,
        );
      },
    }),
  ];
  const byPath = new Map<string, Route<unknown>[]>();
  for (const candidate of routes) byPath.set(candidate.path, [...(byPath.get(candidate.path) ?? []), candidate]);

  /** The X-RateLimit-* of a counter as it stands, for answers that spent nothing (a 400). */
  const currentHeaders = async (principal: Principal, now: Date, isRead: boolean) => {
    const window = isRead ? dayWindow(now) : hourWindow(now);
    const limit = isRead ? READ_LIMIT : principal.account.submitLimit;
    return rateLimitHeaders(
      limit,
      await registry.usage(principal.account.id, isRead ? 'read' : 'submit', window.periodStart),
      window.resetsAt,
    );
  };

  return async (request) => {
    if (request.path === '/openapi.json') {
      if (request.method !== 'GET' && request.method !== 'HEAD') return httpErrors.methodNotAllowed(['GET', 'HEAD']);
      return {
        status: 200,
        headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'public, max-age=3600' },
        body: OPENAPI,
      };
    }
    if (request.path === '/healthz') {
      if (request.method !== 'GET' && request.method !== 'HEAD') return httpErrors.methodNotAllowed(['GET', 'HEAD']);
      // 503 when stale, so a load balancer or monitor acts on it (docs/operations.md).
      const health = release.health();
      return json(health.status === 'ok' ? 200 : 503, health);
    }
    const candidates = byPath.get(request.path);
    if (!candidates) return httpErrors.notFound();
    const chosen = candidates.find((candidate) => candidate.method === request.method);
    if (!chosen) return httpErrors.methodNotAllowed(candidates.map((candidate) => candidate.method));

    const now = clock();
    const isRead = chosen.method === 'GET';
    // A GET with nothing to check spends its read in the same transaction as the key lookup.
    const readNow = isRead && !chosen.parse;
    const window = dayWindow(now);
    const principal = await authenticate(
      registry,
      request,
      now,
      readNow ? { periodStart: window.periodStart, limit: READ_LIMIT } : undefined,
    );
    if (!principal) return httpErrors.invalidApiKey();
    const accountId = principal.account.id;

    let input: unknown;
    if (chosen.parse) {
      const parsed = await chosen.parse(request);
      if (!parsed.ok) return withAccount(parsed.response(await currentHeaders(principal, now, isRead)), accountId);
      input = parsed.input;
    }
    let rateHeaders: Record<string, string> = {};
    if (isRead) {
      const read = principal.read ?? (await registry.consume(accountId, 'read', window.periodStart, 1, READ_LIMIT));
      rateHeaders = rateLimitHeaders(READ_LIMIT, read.used, window.resetsAt);
      if (!read.allowed) return withAccount(httpErrors.rateLimited(secondsUntil(window.resetsAt, now), rateHeaders), accountId);
    }
    return withAccount(await chosen.run({ request, principal, now, input, rateHeaders }), accountId);
  };
}

function withAccount(response: HttpResponse, accountId: number): HttpResponse {
  response.accountId = accountId;
  return response;
}

/** The body of POST /v1/barcodes: JSON, an object with `items`, 1 to 500 of them. */
const parseBatch: Parse<unknown[]> = async (request) => {
  const text = (await request.body()).toString('utf8');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { ok: false, response: (headers) => httpErrors.badRequest('invalid_json', 'Il corpo non è JSON valido.', headers) };
  }
  const items = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>).items : undefined;
  if (!Array.isArray(items))
    return {
      ok: false,
      response: (headers) => httpErrors.badRequest('invalid_body', 'Il corpo deve essere un oggetto con un array "items".', headers),
    };
  if (items.length === 0)
    return { ok: false, response: (headers) => httpErrors.badRequest('empty_batch', 'Il lotto non contiene elementi.', headers) };
  if (items.length > MAX_BATCH)
    return {
      ok: false,
      response: (headers) =>
        httpErrors.badRequest('batch_too_large', `Il lotto supera ${MAX_BATCH} elementi.`, headers, { max: MAX_BATCH }),
    };
  return { ok: true, input: items };
};

/** A whole number within bounds, the default when absent, or null when invalid. */
function pageParameter(value: string | null, fallback: number, min: number, max: number): number | null {
  if (value === null) return fallback;
  if (!/^\d{1,16}$/.test(value)) return null;
  const number = Number(value);
  return number >= min && number <= max ? number : null;
}

/** The key from `Authorization: Bearer` (preferred) or `X-Api-Key`; any failure is the same null. */
async function authenticate(registry: Registry, request: HttpRequest, now: Date, read?: { periodStart: string; limit: number }) {
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
