import type { HttpRequest, HttpResponse } from '../http.ts';

/**
 * Security headers on every page: a Content-Security-Policy without inline script, no framing,
 * no Referer (the sign-in page's URL carries the token), no MIME sniffing, no caching.
 */
export const PAGE_HEADERS: Record<string, string> = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'cache-control': 'no-store',
};

/** Over https, browsers are told to use nothing else for a year (set only when the site URL is https). */
export const HSTS = { 'strict-transport-security': 'max-age=31536000' };

/**
 * Puts the page headers under every answer of the site: a route's own headers (a feed's type, an
 * asset's caching) win over them, and nothing leaves without the others.
 */
export function securityHeaders(options: { secure: boolean }) {
  const base = options.secure ? { ...PAGE_HEADERS, ...HSTS } : PAGE_HEADERS;
  return (next: (request: HttpRequest) => Promise<HttpResponse>) =>
    async (request: HttpRequest): Promise<HttpResponse> => {
      const response = await next(request);
      return { ...response, headers: { ...base, ...response.headers } };
    };
}
