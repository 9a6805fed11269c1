import type { Registry, WebSession } from '../../registry/registry.ts';
import { sha256Hex } from '../../util/digests.ts';
import { parseCookies } from '../cookies.ts';
import { header, type HttpRequest, type HttpResponse } from '../http.ts';
import type { Middleware, RouteContext } from '../router.ts';

/** A signed-in session, with the SHA-256 of its id (what the registry stores). */
export type SignedIn = WebSession & { idHash: string };

export interface SessionContext extends RouteContext {
  session: SignedIn;
}

/** The session a request's cookie names, if it is live and its account not blocked. */
export function sessionReader(registry: Registry, cookie: string, now: () => Date) {
  return async (request: HttpRequest): Promise<SignedIn | null> => {
    const id = parseCookies(header(request, 'cookie')).get(cookie);
    if (!id) return null;
    const idHash = sha256Hex(id);
    const found = await registry.findSession(idHash, now());
    return found ? { ...found, idHash } : null;
  };
}

export interface SignedInOptions {
  session: (request: HttpRequest) => Promise<SignedIn | null>;
  /** The answer without a session (a redirect to sign in, a 403, or the site's 404 where a page must not be seen to exist). */
  otherwise: (request: HttpRequest) => HttpResponse;
  /** Only sessions this accepts (an administrator's); the others get `otherwise` too. */
  accept?: (session: SignedIn) => boolean;
}

/** Lets the route run only for a signed-in session, which it receives; answers the account for the request log. */
export function signedIn<In extends RouteContext>(options: SignedInOptions): Middleware<In, In & SessionContext> {
  return (next) => async (ctx) => {
    const session = await options.session(ctx.request);
    if (!session || (options.accept && !options.accept(session))) return options.otherwise(ctx.request);
    const response = await next({ ...ctx, session });
    return { ...response, accountId: session.account.id };
  };
}
