import { clientOf } from './client-rate-limit.ts';
import { randomBytes } from 'node:crypto';
import type { Mailer } from '../mail/mailer.ts';
import type { AccountType, Registry } from '../registry/registry.ts';
import { header, type HttpRequest, type HttpResponse } from '../server/http.ts';
import { csrf } from '../server/middleware/csrf.ts';
import { formBody, type FormContext } from '../server/middleware/form-body.ts';
import { sessionReader, signedIn, type SessionContext, type SignedIn } from '../server/middleware/session.ts';
import { hourWindow } from '../server/quota-window.ts';
import type { RouteContext, RouteHandler } from '../server/router.ts';
import type { ServiceMetrics } from '../server/service-metrics.ts';
import { sha256Hex } from '../util/digests.ts';
import { parseCookies, serializeCookie } from '../server/cookies.ts';
import { messagePage } from './pages.ts';
import type { KeyList } from '../release/signing-keys.ts';
import type { ReleaseNotes } from './releases/release-notes.ts';
import type { CatalogueIndex } from './catalogue/catalogue-index.ts';
import type { Rendered } from './render-cache.ts';
import { parsePageNumber } from '../inputs/input-schemas.ts';

export interface WebsiteOptions {
  registry: Registry;
  mailer: Mailer;
  now: () => Date;
  /** The public URL of the site, for the links in e-mails; https makes cookies Secure. */
  siteUrl: () => string;
  signInTtlMs: number;
  sessionTtlMs: number;
  /** Sign-in requests per hour: per e-mail address and per client address. */
  limits: { perAddress: number; perClient: number };
  /**
   * Behind load balancers: how many proxies in front of this one append to X-Forwarded-For. The
   * client is the address the outermost trusted proxy saw: that many entries from the right (the
   * entries to their left are the client's own words). 0: the socket's address.
   */
  trustProxy?: number;
  log: (event: Record<string, unknown>) => void;
  /** The recent releases and their changes, for the public pages and the feed. */
  history: { recent(): Promise<ReleaseNotes[]> };
  /** The public keys that sign the current manifest, as the bucket lists them (none: releases are not signed). */
  signingKeys?: () => KeyList;
  /** Sign-up policy: open or closed, and the account types an administrator approves by hand. */
  signUp?: SignUpPolicy;
  /** Whether the tariff served has a code: the desk approves matches only to those (as the API accepts them). */
  tariffHas?: (admCode: number) => boolean;
  /** Told of each sign-in or sign-up attempt refused (the service's /metrics). */
  metrics?: Pick<ServiceMetrics, 'accessRefused'>;
  /**
   * The public catalogue of the release served (none: no /prodotti and /variazioni pages), and how
   * many of its pages a client may ask for per minute (setting publicPagesPerMinute).
   */
  catalogue?: { index(): Promise<CatalogueIndex>; perClientPerMinute: number };
}

export interface SignUpPolicy {
  open: boolean;
  approvalTypes: readonly AccountType[];
}

export const randomToken = () => randomBytes(32).toString('base64url');

/** `?pagina=`: absent is page 1; anything but a page number (inputs/input-schemas.ts) is no page (a 404). */
export function pageNumber(value: string | null): number | null {
  if (value === null) return 1;
  return parsePageNumber(value);
}

/** A link a page offers back (the 404 and 429 pages' way out). */
export interface BackLink {
  href: string;
  label: string;
}

/**
 * What the site's routes share, made once per site (siteKit): its cookies, the pages every route
 * may answer (403, 404, 405, 429), redirects, sessions and the middleware of signed-in and
 * anonymous forms, and the work done after an answer went out.
 */
export interface SiteKit {
  readonly registry: Registry;
  readonly options: WebsiteOptions;
  /** Served over https: cookies are Secure and `__Host-` named. */
  readonly secure: boolean;
  readonly sessionCookie: string;
  /** How long a sign-in link lasts, in minutes (for the pages and mails that say so). */
  readonly minutes: number;
  page(status: number, body: string | Buffer, headers?: Record<string, string>): HttpResponse;
  /** A 303 to `location`. */
  redirect(location: string, headers?: Record<string, string>): HttpResponse;
  /** The 403 page of a form that is stale or not from this site. */
  forbidden(): HttpResponse;
  notFound(): HttpResponse;
  /** The session a request's cookie opens, or null. */
  session(request: HttpRequest): Promise<SignedIn | null>;
  methodNotAllowed(allow: string[]): HttpResponse;
  /** The 429 page: when to try again, in words and in Retry-After (an hour, unless said). */
  tooMany(retryAfterSeconds?: number, back?: BackLink): HttpResponse;
  /** A page rendered once and kept, with its ETag: 304 when the client already holds those bytes. */
  keptPage(request: HttpRequest, kept: Rendered, headers: Record<string, string>): HttpResponse;
  /** The site's public URL of a path (for e-mails). */
  siteLink(path: string): string;
  /** The anonymous CSRF token: the cookie's, or a new one to set. */
  anonymousCsrf(request: HttpRequest): { token: string; headers: Record<string, string> };
  /**
   * The page an e-mailed link opens: it asks to confirm, and showing it does not use the link
   * (mail scanners that open links must not spend it). `usable` checks the link's token, by its SHA-256.
   */
  linkPage(
    usable: (tokenHash: string, now: Date) => Promise<boolean>,
    invalid: () => HttpResponse,
    render: (token: string, csrf: string) => string,
  ): (context: RouteContext) => Promise<HttpResponse>;
  /** A form sent before sign-in: its token must equal the double-submit cookie's. */
  anonymousForm(next: RouteHandler<FormContext>): RouteHandler;
  /** A signed-in page or form: without a session, a page goes to sign-in and a form is refused; a form carries the session's token. */
  signedIn(next: RouteHandler<SessionContext & FormContext>): RouteHandler;
  /** For anyone but an administrator the page does not exist: the same 404 as any unknown page. */
  administrator(next: RouteHandler<SessionContext & FormContext>): RouteHandler;
  /** Opens a session for the account and goes to `location`. */
  signInAs(accountId: number, now: Date, location: string): Promise<HttpResponse>;
  /** Per client and per address: the second is counted only when the first allows. */
  withinLimits(request: HttpRequest, purpose: string, email: string, now: Date): Promise<boolean>;
  /** Work done after the answer went out (a lookup, a durable insert, a mail), so neither the answer nor its timing tells what it found. */
  later(work: () => Promise<void>): void;
  /** The number of deferred works under way (for tests: none once they are done). */
  readonly deferred: number;
  /** Waits for the deferred works (tests, shutdown). */
  settled(): Promise<void>;
}

/** The kit of one site. */
export function siteKit(options: WebsiteOptions): SiteKit {
  const { registry } = options;
  const secure = options.siteUrl().startsWith('https://');
  const sessionCookie = secure ? '__Host-sessione' : 'sessione';
  const csrfCookie = secure ? '__Host-csrf' : 'csrf';
  const page = (status: number, body: string | Buffer, headers: Record<string, string> = {}): HttpResponse => ({ status, headers, body });
  const redirect = (location: string, headers: Record<string, string> = {}): HttpResponse => ({
    status: 303,
    headers: { location, ...headers },
    body: null,
  });
  const forbidden = () =>
    page(403, messagePage('Richiesta non valida', 'Il modulo è scaduto o non proviene da questo sito. Ricarica la pagina e riprova.'));
  const notFound = () =>
    page(404, messagePage('Pagina non trovata', 'Questa pagina non esiste.', { href: '/', label: 'Vai alla pagina iniziale' }));
  const session = sessionReader(registry, sessionCookie, options.now);
  const sessionForm = (next: RouteHandler<SessionContext & FormContext>) =>
    formBody<SessionContext>()(csrf<SessionContext & FormContext>({ expected: (ctx) => ctx.session.csrfToken, refuse: forbidden })(next));
  /** Mails being prepared after their answer went out; `settled` waits for them (tests, shutdown). */
  const pending = new Set<Promise<void>>();

  return {
    registry,
    options,
    secure,
    sessionCookie,
    minutes: Math.round(options.signInTtlMs / 60_000),
    page,
    redirect,
    forbidden,
    notFound,
    session,
    methodNotAllowed: (allow: string[]) => ({
      ...page(405, messagePage('Metodo non consentito', 'Questa pagina non accetta questo tipo di richiesta.')),
      headers: { allow: allow.join(', ') },
    }),
    tooMany: (retryAfterSeconds = 3600, back = { href: '/accedi', label: "Torna all'accesso" }) =>
      page(
        429,
        messagePage(
          'Troppe richieste',
          `Hai fatto troppe richieste in poco tempo. Riprova tra ${retryAfterSeconds >= 3600 ? "un'ora" : retryAfterSeconds > 60 ? 'qualche minuto' : 'un minuto'}.`,
          back,
        ),
        { 'retry-after': String(retryAfterSeconds) },
      ),
    keptPage: (request: HttpRequest, kept: Rendered, headers: Record<string, string>): HttpResponse => {
      const withTag = { ...headers, etag: kept.etag };
      if (header(request, 'if-none-match') === kept.etag) return { status: 304, headers: withTag, body: null };
      return page(200, kept.body, withTag);
    },
    siteLink: (path: string) => `${options.siteUrl().replace(/\/+$/, '')}${path}`,

    anonymousCsrf(request: HttpRequest): { token: string; headers: Record<string, string> } {
      const existing = parseCookies(header(request, 'cookie')).get(csrfCookie);
      const token = existing && /^[A-Za-z0-9_-]{43}$/.test(existing) ? existing : randomToken();
      return { token, headers: existing === token ? {} : { 'set-cookie': serializeCookie(csrfCookie, token, { secure }) } };
    },

    linkPage(
      usable: (tokenHash: string, now: Date) => Promise<boolean>,
      invalid: () => HttpResponse,
      render: (token: string, csrf: string) => string,
    ) {
      return async ({ request }: RouteContext): Promise<HttpResponse> => {
        const token = request.query.get('t') ?? '';
        if (!(await usable(sha256Hex(token), options.now()))) return invalid();
        const csrf = this.anonymousCsrf(request);
        return page(200, render(token, csrf.token), csrf.headers);
      };
    },

    anonymousForm: (next: RouteHandler<FormContext>): RouteHandler =>
      formBody<RouteContext>()(
        csrf<FormContext>({ expected: (ctx) => parseCookies(header(ctx.request, 'cookie')).get(csrfCookie), refuse: forbidden })(next),
      ),

    signedIn: (next: RouteHandler<SessionContext & FormContext>): RouteHandler =>
      signedIn<RouteContext>({ session, otherwise: (request) => (request.method === 'GET' ? redirect('/accedi') : forbidden()) })(
        sessionForm(next),
      ),

    administrator: (next: RouteHandler<SessionContext & FormContext>): RouteHandler =>
      signedIn<RouteContext>({ session, otherwise: notFound, accept: (found) => found.account.admin })(sessionForm(next)),

    async signInAs(accountId: number, now: Date, location: string): Promise<HttpResponse> {
      const id = randomToken();
      await registry.createSession(accountId, sha256Hex(id), randomToken(), new Date(now.getTime() + options.sessionTtlMs), now);
      const maxAgeSeconds = Math.floor(options.sessionTtlMs / 1000);
      return redirect(location, { 'set-cookie': serializeCookie(sessionCookie, id, { secure, maxAgeSeconds }) });
    },

    async withinLimits(request: HttpRequest, purpose: string, email: string, now: Date): Promise<boolean> {
      const hour = hourWindow(now).periodStart;
      const client = `${purpose}:client:${clientAddress(request, options.trustProxy ?? 0)}`;
      const allowed =
        (await registry.countRequest(client, hour, options.limits.perClient)).allowed &&
        (await registry.countRequest(`${purpose}:address:${email}`, hour, options.limits.perAddress)).allowed;
      if (!allowed) options.metrics?.accessRefused(purpose, 'rate_limited');
      return allowed;
    },

    // On the event loop's next turn: by then the answer has been written, whereas work started now
    // would run its first steps (a lookup, an fsync) in the microtasks before the answer is written.
    later(work: () => Promise<void>): void {
      const nextTurn = new Promise<void>((resolve) => setImmediate(resolve));
      const deferred: Promise<void> = nextTurn
        .then(work)
        .catch((error: unknown) => options.log({ event: 'mail.failed', error: (error as Error).message }))
        // Forgotten once done: only work under way is kept (for `settled`), not one promise per sign-in for ever.
        .finally(() => pending.delete(deferred));
      pending.add(deferred);
    },

    get deferred(): number {
      return pending.size;
    },

    async settled(): Promise<void> {
      while (pending.size > 0) await Promise.all([...pending]);
    },
  };
}

/**
 * The client's address for per-client limits. Behind `trustedHops` proxies, the entry that many
 * places from the right of X-Forwarded-For (the outermost trusted proxy wrote it); without a
 * proxy, or when the header is shorter than the chain, the socket's address.
 */
export function clientAddress(request: HttpRequest, trustedHops: number): string {
  if (trustedHops <= 0) return clientOf(request.remoteAddress);
  const chain = (header(request, 'x-forwarded-for') ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  return clientOf(chain[chain.length - trustedHops] ?? request.remoteAddress);
}
