import type { HttpRequest, HttpResponse } from './http.ts';

/** What every route handler receives: the request and the values of the path's `:name` segments. */
export interface RouteContext {
  request: HttpRequest;
  params: Record<string, string>;
}

export type RouteHandler<C extends RouteContext = RouteContext> = (ctx: C) => Promise<HttpResponse>;

/**
 * A middleware wraps a handler into another: it may answer by itself (401, 403, a redirect), add
 * to the context what it found (the principal, the session, the parsed form), or change the answer
 * (security headers). Written as small factories, applied per route.
 *
 * @example const signedInPage: RouteHandler = signedIn(site)(async ({ session }) => site.page(200, render(session)));
 */
export type Middleware<In extends RouteContext, Out extends RouteContext> = (next: RouteHandler<Out>) => RouteHandler<In>;

export interface Route {
  /** The methods it answers; `*` answers every method (a route that decides for itself). */
  methods: readonly string[];
  /** `/v1/version`, or with named segments: `/account/chiavi/:id/revoca`, `/aggiornamenti/:version`. */
  path: string;
  handle: RouteHandler;
}

export interface RouterOptions {
  /** The answer for a path no route has (the API's JSON 404, the site's page). */
  notFound: (request: HttpRequest) => HttpResponse | Promise<HttpResponse>;
  /** The answer for a known path asked with another method, with the methods it allows. */
  methodNotAllowed: (request: HttpRequest, allow: string[]) => HttpResponse | Promise<HttpResponse>;
}

interface Compiled {
  pattern: RegExp;
  path: string;
  names: string[];
  byMethod: Map<string, RouteHandler>;
}

/** The route label of an answer no route gave (an unknown path, a wrong method). */
export const UNMATCHED_ROUTE = '(unmatched)';

/**
 * One router for the API and the website: static paths are found with one map lookup (the API's
 * hot paths), paths with `:name` segments by pattern, in the order given. An unknown path and a
 * wrong method are answered by the options' responders, before any middleware runs: they cost
 * nothing.
 */
export function createRouter(routes: Route[], options: RouterOptions): (request: HttpRequest) => Promise<HttpResponse> {
  const fixed = new Map<string, Map<string, RouteHandler>>();
  const patterns: Compiled[] = [];
  for (const route of routes) {
    const names = [...route.path.matchAll(/:([a-z]+)/gi)].map((match) => match[1]!);
    let byMethod: Map<string, RouteHandler>;
    if (names.length === 0) {
      byMethod = fixed.get(route.path) ?? new Map();
      fixed.set(route.path, byMethod);
    } else {
      const source = route.path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:([a-z]+)/gi, '([^/]+)');
      const existing = patterns.find((compiled) => compiled.pattern.source === `^${source}$`);
      byMethod = existing?.byMethod ?? new Map();
      if (!existing) patterns.push({ pattern: new RegExp(`^${source}$`), path: route.path, names, byMethod });
    }
    for (const method of route.methods) byMethod.set(method, route.handle);
  }

  return async (request) => {
    let byMethod = fixed.get(request.path);
    let path = request.path;
    let params: Record<string, string> = {};
    if (!byMethod) {
      for (const compiled of patterns) {
        const match = compiled.pattern.exec(request.path);
        if (!match) continue;
        const values = match.slice(1).map(decodeSegment);
        // A segment that does not decode names nothing here.
        if (values.includes(null)) break;
        byMethod = compiled.byMethod;
        path = compiled.path;
        params = Object.fromEntries(compiled.names.map((name, i) => [name, values[i]!]));
        break;
      }
    }
    if (!byMethod) return options.notFound(request);
    const handle = byMethod.get(request.method) ?? byMethod.get('*');
    if (!handle) return options.methodNotAllowed(request, [...byMethod.keys()]);
    const response = await handle({ request, params });
    response.route = path;
    return response;
  };
}

/** A route for these methods (one, or several such as GET and HEAD). */
export const route = (methods: string | readonly string[], path: string, handle: RouteHandler): Route => ({
  methods: typeof methods === 'string' ? [methods] : methods,
  path,
  handle,
});

function decodeSegment(segment: string | undefined): string | null {
  try {
    return decodeURIComponent(segment ?? '');
  } catch {
    return null;
  }
}
