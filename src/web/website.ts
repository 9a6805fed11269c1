import { randomBytes } from 'node:crypto';
import { sameSecret, sha256Hex as sha256 } from '../util/digests.ts';
import { readFileSync } from 'node:fs';
import { createKey } from '../registry/create-key.ts';
import { normaliseEmail } from '../registry/email.ts';
import { ACCOUNT_TYPES, MAX_ACTIVE_KEYS, READ_LIMIT, type AccountType, type Registry, type WebSession } from '../registry/registry.ts';
import { header, type Handler, type HttpRequest, type HttpResponse } from '../server/http.ts';
import { dayWindow, hourWindow } from '../server/quota-window.ts';
import type { Mailer } from '../mail/mailer.ts';
import { parseCookies, serializeCookie } from './cookies.ts';
import { html } from './html.ts';
import { DEFAULT_RULES, type StatusRules } from '../barcodes/status-rules.ts';
import { createModerationDesk } from './moderation-desk.ts';
import { releaseFeed } from './release-feed.ts';
import { submissionsPage, SUBMISSIONS_PER_PAGE } from './submissions-page.ts';
import { alreadyRegisteredEmail, confirmSignUpPage, signUpClosedPage, signUpEmail, signUpPage, signUpSentPage } from './sign-up-pages.ts';
import { USAGE_RULES_VERSION } from './usage-rules.ts';
import type { ReleaseNotes } from './release-notes.ts';
import { releaseDetailPage, releasesPage } from './release-pages.ts';
import { accountPage, confirmRevokePage, confirmSignInPage, linkSentPage, messagePage, signInEmail, signInPage } from './pages.ts';

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
  /** Sign-up policy: open or closed, and the account types an administrator approves by hand. */
  signUp?: SignUpPolicy;
  /** The status rules the moderation desk's decisions recompute barcodes with (the same as the API's). */
  rules?: StatusRules;
}

export interface SignUpPolicy {
  open: boolean;
  approvalTypes: readonly AccountType[];
}

export const DEFAULT_SIGN_UP_POLICY: SignUpPolicy = { open: true, approvalTypes: ['Integration'] };

export const DEFAULT_SIGN_IN_TTL_MS = 15 * 60_000;
export const DEFAULT_SESSION_TTL_MS = 14 * 86_400_000;
export const DEFAULT_SIGN_IN_LIMITS = { perAddress: 5, perClient: 30 };

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

const STATIC: Record<string, { type: string; body: Buffer }> = {
  '/static/style.css': { type: 'text/css; charset=utf-8', body: readFileSync(new URL('./static/style.css', import.meta.url)) },
  '/static/app.js': { type: 'text/javascript; charset=utf-8', body: readFileSync(new URL('./static/app.js', import.meta.url)) },
};

const randomToken = () => randomBytes(32).toString('base64url');

/**
 * The website (interface spec 2.6 and 5.4), in Italian, server-rendered, working without
 * JavaScript: sign-in by e-mail link, the account page with usage and keys, key creation and
 * revocation, sign-out here or everywhere. Sessions and sign-in links are stored as SHA-256 only.
 * Forms carry a CSRF token: the session's for signed-in forms, a double-submit cookie before.
 */
export function createWebsite(options: WebsiteOptions): Handler & { settled: () => Promise<void> } {
  const { registry, now: clock } = options;
  const secure = options.siteUrl().startsWith('https://');
  const sessionCookie = secure ? '__Host-sessione' : 'sessione';
  const csrfCookie = secure ? '__Host-csrf' : 'csrf';
  const minutes = Math.round(options.signInTtlMs / 60_000);

  const pageHeaders = secure ? { ...PAGE_HEADERS, ...HSTS } : PAGE_HEADERS;
  const page = (status: number, body: string, extra: Record<string, string | string[]> = {}): HttpResponse => ({
    status,
    headers: { ...pageHeaders, ...flatten(extra) },
    body,
  });
  const redirect = (location: string, extra: Record<string, string | string[]> = {}): HttpResponse => ({
    status: 303,
    headers: { ...pageHeaders, location, ...flatten(extra) },
    body: null,
  });

  /** The anonymous CSRF token: the cookie's, or a new one to set. */
  const anonymousCsrf = (request: HttpRequest) => {
    const existing = parseCookies(header(request, 'cookie')).get(csrfCookie);
    const token = existing && /^[A-Za-z0-9_-]{43}$/.test(existing) ? existing : randomToken();
    return { token, setCookie: existing === token ? undefined : serializeCookie(csrfCookie, token, { secure }) };
  };

  const session = async (request: HttpRequest): Promise<(WebSession & { idHash: string }) | null> => {
    const id = parseCookies(header(request, 'cookie')).get(sessionCookie);
    if (!id) return null;
    const idHash = sha256(id);
    const found = await registry.findSession(idHash, clock());
    return found ? { ...found, idHash } : null;
  };

  const form = async (request: HttpRequest) => new URLSearchParams((await request.body()).toString('utf8'));
  const forbidden = () =>
    page(403, messagePage('Richiesta non valida', 'Il modulo è scaduto o non proviene da questo sito. Ricarica la pagina e riprova.'));

  const renderAccount = async (
    current: WebSession,
    extra: { newKey?: { key: string; label: string }; notice?: string; error?: string } = {},
    status = 200,
  ) => {
    const now = clock();
    const day = dayWindow(now);
    const hour = hourWindow(now);
    const { account } = current;
    const [keys, reads, submits] = await Promise.all([
      registry.listKeys(account.id),
      registry.usage(account.id, 'read', day.periodStart),
      registry.usage(account.id, 'submit', hour.periodStart),
    ]);
    return page(
      status,
      accountPage({
        account,
        keys,
        csrf: current.csrfToken,
        formNonce: randomToken(),
        maxKeys: MAX_ACTIVE_KEYS,
        ...extra,
        reads: { limit: READ_LIMIT, used: reads, resetsAt: day.resetsAt },
        submits: { limit: account.submitLimit, used: submits, resetsAt: hour.resetsAt },
      }),
    );
  };

  /** Sign-in mails being prepared after their answer went out; `settled` waits for them (tests, shutdown). */
  const pending = new Set<Promise<void>>();
  const sendSignInLink = async (email: string, now: Date) => {
    const account = await registry.findAccount(email);
    if (!account || account.blocked) return;
    const token = randomToken();
    await registry.createSignInToken(account.id, sha256(token), new Date(now.getTime() + options.signInTtlMs), now);
    await options.mailer.send({ to: email, ...signInEmail(`${options.siteUrl().replace(/\/+$/, '')}/accesso?t=${token}`, minutes) });
  };

  const signUpPolicy = options.signUp ?? DEFAULT_SIGN_UP_POLICY;
  const siteLink = (path: string) => `${options.siteUrl().replace(/\/+$/, '')}${path}`;
  const sendSignUpLink = async (request: { email: string; type: AccountType; organisation: string }, now: Date) => {
    if (await registry.findAccount(request.email)) {
      await options.mailer.send({ to: request.email, ...alreadyRegisteredEmail(siteLink('/accedi')) });
      return;
    }
    const token = randomToken();
    await registry.createSignUp(
      { ...request, rulesVersion: USAGE_RULES_VERSION, tokenHash: sha256(token), expiresAt: new Date(now.getTime() + options.signInTtlMs) },
      now,
    );
    await options.mailer.send({ to: request.email, ...signUpEmail(siteLink(`/conferma-registrazione?t=${token}`), minutes) });
  };

  /** Per client and per address, as for sign-in links: the second is counted only when the first allows. */
  const withinLimits = async (request: HttpRequest, purpose: string, email: string, now: Date) => {
    const hour = hourWindow(now).periodStart;
    const perClient = await registry.countRequest(
      `${purpose}:client:${clientAddress(request, options.trustProxy ?? 0)}`,
      hour,
      options.limits.perClient,
    );
    return perClient.allowed && (await registry.countRequest(`${purpose}:address:${email}`, hour, options.limits.perAddress)).allowed;
  };
  const tooMany = () =>
    page(429, messagePage('Troppe richieste', "Hai fatto troppe richieste in poco tempo. Riprova tra un'ora."), { 'retry-after': '3600' });

  const desk = createModerationDesk({
    registry,
    rules: options.rules ?? DEFAULT_RULES,
    mailer: options.mailer,
    now: clock,
    siteLink,
    log: options.log,
    page: (status, body) => page(status, body),
    redirect: (location) => redirect(location),
  });

  const handler: Handler & { settled: () => Promise<void> } = async (request) => {
    const { method, path } = request;
    const asset = STATIC[path];
    if (asset)
      return {
        status: 200,
        headers: { 'content-type': asset.type, 'cache-control': 'public, max-age=3600', 'x-content-type-options': 'nosniff' },
        body: asset.body,
      };

    if (path === '/' && method === 'GET') return redirect((await session(request)) ? '/account' : '/accedi');

    if (path === '/aggiornamenti' || path === '/aggiornamenti.atom' || path.startsWith('/aggiornamenti/')) {
      if (method !== 'GET' && method !== 'HEAD') return methodNotAllowed(['GET', 'HEAD']);
      return releasePages(request);
    }

    if (path === '/accedi') {
      if (method === 'GET') {
        if (await session(request)) return redirect('/account');
        const csrf = anonymousCsrf(request);
        return page(200, signInPage(csrf.token), csrf.setCookie ? { 'set-cookie': csrf.setCookie } : {});
      }
      if (method === 'POST') {
        const fields = await form(request);
        const cookieToken = parseCookies(header(request, 'cookie')).get(csrfCookie);
        if (!sameSecret(fields.get('_csrf') ?? undefined, cookieToken)) return forbidden();
        const email = normaliseEmail(fields.get('email') ?? '');
        if (!email)
          return page(
            400,
            signInPage(cookieToken!, {
              email: fields.get('email') ?? '',
              message: html`<p class="error" role="alert">Scrivi un indirizzo e-mail valido.</p>`,
            }),
          );
        const now = clock();
        if (!(await withinLimits(request, 'sign-in', email, now))) return tooMany();
        // The same page, in the same time, whether or not the address has an account: the lookup,
        // the token and the mail happen after the answer, so neither the page nor its timing tells.
        pending.add(
          sendSignInLink(email, now).catch((error: unknown) => options.log({ event: 'mail.failed', error: (error as Error).message })),
        );
        return page(200, linkSentPage(minutes));
      }
      return methodNotAllowed(['GET', 'POST']);
    }

    if (path === '/registrati') {
      if (method !== 'GET' && method !== 'POST') return methodNotAllowed(['GET', 'POST']);
      if (!signUpPolicy.open) return page(403, signUpClosedPage());
      if (method === 'GET') {
        if (await session(request)) return redirect('/account');
        const csrf = anonymousCsrf(request);
        return page(200, signUpPage(csrf.token, {}, signUpPolicy.approvalTypes), csrf.setCookie ? { 'set-cookie': csrf.setCookie } : {});
      }
      const fields = await form(request);
      const cookieToken = parseCookies(header(request, 'cookie')).get(csrfCookie);
      if (!sameSecret(fields.get('_csrf') ?? undefined, cookieToken)) return forbidden();
      const values = {
        email: fields.get('email') ?? '',
        type: fields.get('type') ?? '',
        organisation: (fields.get('organisation') ?? '').trim(),
      };
      const email = normaliseEmail(values.email);
      const problem = !email
        ? 'Scrivi un indirizzo e-mail valido.'
        : !(ACCOUNT_TYPES as readonly string[]).includes(values.type)
          ? 'Scegli il tipo di account.'
          : values.organisation.length < 2 || values.organisation.length > 200
            ? "Scrivi il nome dell'organizzazione (da 2 a 200 caratteri)."
            : fields.get('accept') !== USAGE_RULES_VERSION
              ? "Per registrarti devi accettare le regole d'uso."
              : null;
      if (problem)
        return page(
          400,
          signUpPage(cookieToken!, { ...values, message: html`<p class="error" role="alert">${problem}</p>` }, signUpPolicy.approvalTypes),
        );
      const now = clock();
      if (!(await withinLimits(request, 'sign-up', email!, now))) return tooMany();
      // The same page, in the same time, whether or not the address has an account: the lookup,
      // the request and the mail happen after the answer (as for sign-in links).
      pending.add(
        sendSignUpLink({ email: email!, type: values.type as AccountType, organisation: values.organisation }, now).catch(
          (error: unknown) => options.log({ event: 'mail.failed', error: (error as Error).message }),
        ),
      );
      return page(200, signUpSentPage(minutes));
    }

    if (path === '/conferma-registrazione') {
      if (method === 'GET') {
        // Showing the page does not use the link: mail scanners that open links must not spend it.
        const token = request.query.get('t') ?? '';
        if (!(await registry.signUpUsable(sha256(token), clock()))) return page(410, invalidSignUpLinkPage());
        const csrf = anonymousCsrf(request);
        return page(200, confirmSignUpPage(token, csrf.token), csrf.setCookie ? { 'set-cookie': csrf.setCookie } : {});
      }
      if (method === 'POST') {
        const fields = await form(request);
        if (!sameSecret(fields.get('_csrf') ?? undefined, parseCookies(header(request, 'cookie')).get(csrfCookie))) return forbidden();
        const now = clock();
        const confirmed = await registry.confirmSignUp(sha256(fields.get('token') ?? ''), signUpPolicy.approvalTypes, now);
        if (!confirmed) return page(410, invalidSignUpLinkPage());
        if (confirmed.outcome === 'awaiting_approval') {
          options.log({ event: 'web.sign_up_waiting', type: confirmed.signUp.type });
          return page(
            200,
            messagePage(
              'Registrazione confermata',
              "Grazie: un amministratore esaminerà la richiesta. Riceverai un'e-mail quando l'account sarà attivo.",
              { href: '/aggiornamenti', label: 'Intanto, gli aggiornamenti della tariffa' },
              'notice',
            ),
          );
        }
        if (confirmed.outcome === 'existed')
          return page(
            200,
            messagePage(
              'Account già esistente',
              'Questo indirizzo ha già un account: entra con il link di accesso.',
              { href: '/accedi', label: "Vai all'accesso" },
              'notice',
            ),
          );
        options.log({ event: 'web.sign_up', account: confirmed.account.id });
        return signInAs(confirmed.account.id, now, '/account?benvenuto=1');
      }
      return methodNotAllowed(['GET', 'POST']);
    }

    if (path === '/accesso') {
      if (method === 'GET') {
        // Showing the page does not use the link: mail scanners that open links must not spend it.
        const token = request.query.get('t') ?? '';
        if (!(await registry.signInTokenUsable(sha256(token), clock()))) return page(410, invalidLinkPage());
        const csrf = anonymousCsrf(request);
        return page(200, confirmSignInPage(token, csrf.token), csrf.setCookie ? { 'set-cookie': csrf.setCookie } : {});
      }
      if (method === 'POST') {
        // Like every form: a page elsewhere must not sign this browser into another account.
        const fields = await form(request);
        if (!sameSecret(fields.get('_csrf') ?? undefined, parseCookies(header(request, 'cookie')).get(csrfCookie))) return forbidden();
        const token = fields.get('token') ?? '';
        const now = clock();
        const account = await registry.consumeSignInToken(sha256(token), now);
        if (!account) return page(410, invalidLinkPage());
        options.log({ event: 'web.sign_in', account: account.id });
        return signInAs(account.id, now, '/account');
      }
      return methodNotAllowed(['GET', 'POST']);
    }

    if (path === '/account' || path.startsWith('/account/') || path === '/esci' || path === '/esci-ovunque') {
      const current = await session(request);
      if (!current) return method === 'GET' ? redirect('/accedi') : forbidden();
      const accountId = current.account.id;

      if (path === '/account' && method === 'GET') {
        const welcome =
          request.query.get('benvenuto') === '1'
            ? { notice: "Benvenuto: l'account è attivo. Crea qui sotto la chiave API per il tuo software." }
            : {};
        return { ...(await renderAccount(current, welcome)), accountId };
      }

      if (path === '/account/segnalazioni') {
        if (method !== 'GET') return methodNotAllowed(['GET']);
        const requested = Number(request.query.get('pagina') ?? '1');
        const pageNumber = Number.isInteger(requested) && requested >= 1 && requested <= 100_000 ? requested : 1;
        // One more than a page tells whether another page follows.
        const records = await registry.mySubmissions(accountId, SUBMISSIONS_PER_PAGE + 1, (pageNumber - 1) * SUBMISSIONS_PER_PAGE);
        return {
          ...page(200, submissionsPage(records.slice(0, SUBMISSIONS_PER_PAGE), pageNumber, records.length > SUBMISSIONS_PER_PAGE)),
          accountId,
        };
      }

      if (method !== 'POST' && !(method === 'GET' && /^\/account\/chiavi\/\d+\/revoca$/.test(path))) return methodNotAllowed(['POST']);
      const fields = method === 'POST' ? await form(request) : new URLSearchParams();
      if (method === 'POST' && !sameSecret(fields.get('_csrf') ?? undefined, current.csrfToken)) return forbidden();

      if (path === '/account/chiavi') {
        const label = fields.get('label') ?? '';
        // A reload resends the form: its one-time token lets the first sending create a key and
        // the others only say so (the key itself is never stored, so it cannot be shown again).
        const nonce = fields.get('_form') ?? '';
        if (!/^[A-Za-z0-9_-]{43}$/.test(nonce)) return forbidden();
        if (!(await registry.countRequest(`key-form:${current.idHash}:${nonce}`, 'once', 1)).allowed) {
          return {
            ...(await renderAccount(current, {
              notice:
                "Questa richiesta era già stata eseguita: la chiave è stata creata e, per sicurezza, non può essere mostrata di nuovo. Se non l'hai copiata, revocala e creane un'altra.",
            })),
            accountId,
          };
        }
        try {
          const created = await createKey(registry, current.account, label, clock());
          options.log({ event: 'web.key_created', account: accountId, prefix: created.record.prefix });
          return { ...(await renderAccount(current, { newKey: { key: created.key, label } })), accountId };
        } catch (error) {
          if ((error as { code?: string }).code !== 'too_many_keys') throw error;
          return {
            ...(await renderAccount(
              current,
              {
                error: `Hai già ${MAX_ACTIVE_KEYS} chiavi attive, il massimo per un account. Revoca prima una chiave, poi creane una nuova.`,
              },
              409,
            )),
            accountId,
          };
        }
      }
      const revoke = /^\/account\/chiavi\/(\d+)\/revoca$/.exec(path);
      if (revoke) {
        const key = (await registry.listKeys(accountId)).find((candidate) => candidate.id === Number(revoke[1]));
        if (!key)
          return page(
            404,
            messagePage(
              'Chiave non trovata',
              'Questa chiave non esiste o è già stata revocata.',
              { href: '/account', label: "Torna all'account" },
              'error',
              true,
            ),
          );
        if (method === 'GET') return page(200, confirmRevokePage(key, current.csrfToken));
        await registry.revokeKey(accountId, key.prefix, `web (${current.account.email})`, clock());
        options.log({ event: 'web.key_revoked', account: accountId, prefix: key.prefix });
        return { ...(await renderAccount(current, { notice: `La chiave ${key.prefix}… è stata revocata.` })), accountId };
      }
      if (path === '/esci') {
        await registry.deleteSession(current.idHash);
        return redirect('/accedi', { 'set-cookie': serializeCookie(sessionCookie, '', { secure, maxAgeSeconds: 0 }) });
      }
      if (path === '/esci-ovunque') {
        const ended = await registry.deleteAccountSessions(accountId);
        options.log({ event: 'web.sign_out_everywhere', account: accountId, sessions: ended });
        return redirect('/accedi', { 'set-cookie': serializeCookie(sessionCookie, '', { secure, maxAgeSeconds: 0 }) });
      }
    }
    if (path === '/moderazione' || path.startsWith('/moderazione/')) {
      // For anyone but an administrator the desk does not exist: the same 404 as any unknown page.
      const current = await session(request);
      if (current?.account.admin) {
        const fields = method === 'POST' ? await form(request) : null;
        if (fields && !sameSecret(fields.get('_csrf') ?? undefined, current.csrfToken)) return forbidden();
        const answer = await desk(request, current, fields);
        if (answer) return { ...answer, accountId: current.account.id };
      }
    }
    return page(404, messagePage('Pagina non trovata', 'Questa pagina non esiste.', { href: '/', label: 'Vai alla pagina iniziale' }));
  };
  /** Opens a session for the account and goes to `location`. */
  async function signInAs(accountId: number, now: Date, location: string): Promise<HttpResponse> {
    const id = randomToken();
    await registry.createSession(accountId, sha256(id), randomToken(), new Date(now.getTime() + options.sessionTtlMs), now);
    return redirect(location, {
      'set-cookie': serializeCookie(sessionCookie, id, { secure, maxAgeSeconds: Math.floor(options.sessionTtlMs / 1000) }),
    });
  }

  /** Public (prices are public information): no session needed, cacheable for a few minutes. */
  async function releasePages(request: HttpRequest): Promise<HttpResponse> {
    let releases: ReleaseNotes[];
    try {
      releases = await options.history.recent();
    } catch {
      return {
        ...page(
          503,
          messagePage(
            'Servizio non disponibile',
            "L'elenco degli aggiornamenti non è disponibile in questo momento. Riprova tra qualche minuto.",
            { href: '/aggiornamenti', label: 'Riprova' },
          ),
        ),
        headers: { ...pageHeaders, 'retry-after': '60' },
      };
    }
    const signedIn = (await session(request)) !== null;
    const publicHeaders = { ...pageHeaders, 'cache-control': signedIn ? 'private, max-age=60' : 'public, max-age=300' };
    if (request.path === '/aggiornamenti') return { status: 200, headers: publicHeaders, body: releasesPage(releases, signedIn) };
    if (request.path === '/aggiornamenti.atom') {
      const body = releaseFeed(releases, options.siteUrl(), clock().toISOString());
      // Feed readers poll: an unchanged feed costs them a 304.
      const etag = `"${sha256(body).slice(0, 32)}"`;
      const headers = {
        'content-type': 'application/atom+xml; charset=utf-8',
        'cache-control': 'public, max-age=300',
        etag,
        'x-content-type-options': 'nosniff',
      };
      return header(request, 'if-none-match') === etag ? { status: 304, headers, body: null } : { status: 200, headers, body };
    }
    const notes = releases.find((candidate) => `/aggiornamenti/${candidate.version}` === request.path);
    if (!notes)
      return page(
        404,
        messagePage(
          'Rilascio non trovato',
          'Questo rilascio non è tra quelli recenti.',
          { href: '/aggiornamenti', label: 'Tutti gli aggiornamenti' },
          'error',
          signedIn,
        ),
      );
    return { status: 200, headers: publicHeaders, body: releaseDetailPage(notes, signedIn) };
  }

  handler.settled = async () => {
    while (pending.size > 0) await Promise.all([...pending].map((work) => work.finally(() => pending.delete(work))));
  };
  return handler;

  function methodNotAllowed(allow: string[]): HttpResponse {
    return {
      ...page(405, messagePage('Metodo non consentito', 'Questa pagina non accetta questo tipo di richiesta.')),
      headers: { ...pageHeaders, allow: allow.join(', ') },
    };
  }
}

/**
 * The client's address for per-client limits. Behind `trustedHops` proxies, the entry that many
 * places from the right of X-Forwarded-For (the outermost trusted proxy wrote it); without a
 * proxy, or when the header is shorter than the chain, the socket's address.
 */
export function clientAddress(request: HttpRequest, trustedHops: number): string {
  if (trustedHops <= 0) return request.remoteAddress;
  const chain = (header(request, 'x-forwarded-for') ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  return chain[chain.length - trustedHops] ?? request.remoteAddress;
}

function invalidSignUpLinkPage(): string {
  return messagePage(
    'Link non valido',
    'Questo link di registrazione è scaduto, è già stato usato oppure non è valido. Registrati di nuovo.',
    { href: '/registrati', label: 'Vai alla registrazione' },
  );
}

function invalidLinkPage(): string {
  return messagePage('Link non valido', 'Questo link di accesso è scaduto, è già stato usato oppure non è valido. Chiedine uno nuovo.');
}

function flatten(headers: Record<string, string | string[]>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, Array.isArray(value) ? value.join(', ') : value]));
}
