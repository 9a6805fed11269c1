import { fingerprintOf, looksLikeApiKey } from '../../registry/api-key.ts';
import { READ_LIMIT, type Consumption, type Principal, type Registry } from '../../registry/registry.ts';
import { header, type HttpRequest, type HttpResponse } from '../http.ts';
import { httpErrors } from '../http-errors.ts';
import { dayWindow, hourWindow, rateLimitHeaders, secondsUntil } from '../quota-window.ts';
import type { Middleware, RouteContext } from '../router.ts';
import type { ServiceMetrics } from '../service-metrics.ts';

/** What an authenticated API route receives. */
export interface ApiContext<Input = undefined> extends RouteContext {
  principal: Principal;
  now: Date;
  input: Input;
  /** X-RateLimit-* of the read counter after this call (routes that spend a read). */
  rateHeaders: Record<string, string>;
}

/** Checks a request's parameters or body before any quota is spent: a bad request costs nothing. */
export type Parse<Input> = (
  request: HttpRequest,
) => Promise<{ ok: true; input: Input } | { ok: false; response: (rateHeaders: Record<string, string>) => HttpResponse }>;

export interface ApiKeyOptions<Input> {
  registry: Registry;
  now: () => Date;
  /** Every GET under /v1 spends one read (interface spec section 8), 304 included. */
  spendsRead: boolean;
  parse?: Parse<Input>;
  /** Told of each read spent and each refused for the quota. */
  metrics?: Pick<ServiceMetrics, 'readSpent' | 'quotaRefused'>;
}

/**
 * Authenticates a /v1 request by its key (`Authorization: Bearer`, else `X-Api-Key`), then checks
 * its parameters or body (400, free), then spends its read (429 when spent) before the route
 * runs. A route that spends a read and has nothing to check spends it in the same round trip as
 * the key lookup. Every answer carries the account, for the request log.
 */
export function apiKey<Input>(options: ApiKeyOptions<Input>): Middleware<RouteContext, ApiContext<Input>> {
  const { registry, spendsRead, parse } = options;
  return (next) =>
    async ({ request, params }) => {
      const now = options.now();
      const window = dayWindow(now);
      const read = { periodStart: window.periodStart, limit: READ_LIMIT };
      const principal = await authenticate(registry, request, now, spendsRead && !parse ? read : undefined);
      if (!principal) return httpErrors.invalidApiKey();
      const accountId = principal.account.id;

      let input = undefined as Input;
      if (parse) {
        const parsed = await parse(request);
        if (!parsed.ok) return withAccount(parsed.response(await currentHeaders(registry, principal, now, spendsRead)), accountId);
        input = parsed.input;
      }
      let rateHeaders: Record<string, string> = {};
      if (spendsRead) {
        const spent: Consumption = principal.read ?? (await registry.consume(accountId, 'read', read.periodStart, 1, READ_LIMIT));
        rateHeaders = rateLimitHeaders(READ_LIMIT, spent.used, window.resetsAt);
        if (!spent.allowed) {
          options.metrics?.quotaRefused('read');
          return withAccount(httpErrors.rateLimited(secondsUntil(window.resetsAt, now), rateHeaders), accountId);
        }
        options.metrics?.readSpent();
      }
      return withAccount(await next({ request, params, principal, now, input, rateHeaders }), accountId);
    };
}

function withAccount(response: HttpResponse, accountId: number): HttpResponse {
  response.accountId = accountId;
  return response;
}

/** The key from `Authorization: Bearer` (preferred) or `X-Api-Key`; any failure is the same null. */
function authenticate(registry: Registry, request: HttpRequest, now: Date, read?: { periodStart: string; limit: number }) {
  const authorization = header(request, 'authorization');
  const bearer = authorization ? /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1] : undefined;
  const key = bearer ?? header(request, 'x-api-key')?.trim();
  if (!key || !looksLikeApiKey(key)) return Promise.resolve(null);
  // The lookup is by SHA-256 of a 256-bit secret: timing reveals nothing usable about a key.
  return registry.authenticate(fingerprintOf(key), now, read);
}

/** The X-RateLimit-* of a counter as it stands, for answers that spent nothing (a 400). */
async function currentHeaders(registry: Registry, principal: Principal, now: Date, isRead: boolean) {
  const window = isRead ? dayWindow(now) : hourWindow(now);
  const limit = isRead ? READ_LIMIT : principal.account.submitLimit;
  const used = await registry.usage(principal.account.id, isRead ? 'read' : 'submit', window.periodStart);
  return rateLimitHeaders(limit, used, window.resetsAt);
}
