import { readFileSync } from 'node:fs';
import type { Handler } from '../server/http.ts';
import { securityHeaders } from '../server/middleware/security-headers.ts';
import { createRouter, route, type Route } from '../server/router.ts';
import { accountRoutes } from './account/account-routes.ts';
import { catalogueRoutes } from './catalogue/catalogue-routes.ts';
import { moderationRoutes } from './moderation/moderation-desk.ts';
import { releaseRoutes } from './releases/release-routes.ts';
import { signInRoutes } from './account/sign-in-routes.ts';
import { signUpRoutes } from './account/sign-up-routes.ts';
import { siteKit, type WebsiteOptions } from './site-kit.ts';

export { clientAddress, type SignUpPolicy, type WebsiteOptions } from './site-kit.ts';
export { DEFAULT_SIGN_UP_POLICY } from './account/sign-up-routes.ts';

/** A file of static/ served at `path` (and, for the icon browsers ask for on their own, at another address too). */
const asset = (file: string, type: string, path = file): Route => {
  const body = readFileSync(new URL(`.${file}`, import.meta.url));
  const headers = { 'content-type': type, 'cache-control': 'public, max-age=3600' };
  return route(['GET', 'HEAD'], path, async () => ({ status: 200, headers, body }));
};

/**
 * The website (interface spec 2.6 and 5.4), in Italian, server-rendered, working without
 * JavaScript: the public release pages and feed, sign-up, sign-in by e-mail link, the account
 * page with usage and keys, key creation and revocation, sign-out here or everywhere, and the
 * administrators' moderation desk. Sessions and links are stored as SHA-256 only; forms carry a
 * CSRF token (the session's once signed in, a double-submit cookie before); every answer carries
 * the security headers.
 */
export function createWebsite(options: WebsiteOptions): Handler & { settled: () => Promise<void>; deferred: () => number } {
  const site = siteKit(options);
  const routes = [
    asset('/static/style.css', 'text/css; charset=utf-8'),
    asset('/static/app.js', 'text/javascript; charset=utf-8'),
    asset('/static/favicon.svg', 'image/svg+xml'),
    asset('/static/favicon.svg', 'image/svg+xml', '/favicon.ico'),
    ...releaseRoutes(site),
    ...catalogueRoutes(site),
    ...signInRoutes(site),
    ...signUpRoutes(site),
    ...accountRoutes(site),
    ...moderationRoutes(site),
  ];
  const router = createRouter(routes, { notFound: site.notFound, methodNotAllowed: (_, allow) => site.methodNotAllowed(allow) });
  const handler = securityHeaders({ secure: site.secure })(router);
  return Object.assign(handler, { settled: () => site.settled(), deferred: () => site.deferred });
}
