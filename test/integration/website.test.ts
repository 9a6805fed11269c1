import { beforeEach, describe, expect, it } from 'vitest';
import type { MailMessage, Mailer } from '../../src/mail/mailer.ts';
import { BACKENDS, type RegistryLocation } from '../helpers/registries.ts';
import type { HttpRequest, HttpResponse } from '../../src/server/http.ts';
import { createWebsite } from '../../src/web/website.ts';

/** The website in-process with a clock the test moves, a real SQLite registry and a mailbox. */
let backend: () => Promise<RegistryLocation>;

async function setUp(siteUrl = 'http://127.0.0.1:8080', extra: { perClient?: number; trustProxy?: number; mailer?: Mailer } = {}) {
  const registry = await (await backend()).open();
  await registry.createAccount({ email: 'shop@example.it', type: 'User' }, new Date());
  let now = new Date('2026-11-22T10:00:00Z');
  const mailbox: MailMessage[] = [];
  const site = createWebsite({
    registry, now: () => now, siteUrl: () => siteUrl, signInTtlMs: 15 * 60_000, sessionTtlMs: 86_400_000, limits: { perAddress: 3, perClient: extra.perClient ?? 100 }, trustProxy: extra.trustProxy, log: () => {},
    mailer: extra.mailer ?? { description: 'test', send: async (message) => void mailbox.push(message) },
    history: { recent: async () => [] },
  });
  let cookies = new Map<string, string>();
  const call = async (method: string, path: string, form?: Record<string, string>, remoteAddress = '127.0.0.1', forwardedFor?: string): Promise<HttpResponse & { text: string }> => {
    const [pathname, query = ''] = path.split('?');
    const request: HttpRequest = {
      method, path: pathname!, query: new URLSearchParams(query), remoteAddress,
      headers: { cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; '), 'x-forwarded-for': forwardedFor },
      body: async () => Buffer.from(new URLSearchParams(form ?? {}).toString()),
    };
    const response = await site(request);
    const setCookie = response.headers['set-cookie'];
    if (setCookie) {
      const [pair] = setCookie.split(';');
      const [name, value] = pair!.split('=');
      if (value) cookies.set(name!, decodeURIComponent(value));
      else cookies.delete(name!);
    }
    return { ...response, text: String(response.body ?? '') };
  };
  const csrf = (text: string) => /name="_csrf" value="([^"]+)"/.exec(text)?.[1] ?? '';
  /** Asks for a link, and waits for the mail work the site does after answering. */
  const requestLink = async (email: string, remoteAddress?: string, forwardedFor?: string) => {
    const response = await call('POST', '/accedi', { _csrf: csrf((await call('GET', '/accedi')).text), email }, remoteAddress, forwardedFor);
    await site.settled();
    return response;
  };
  const linkIn = (message: MailMessage) => /https?:\/\/\S+\/accesso\?t=[A-Za-z0-9_-]+/.exec(message.text)![0];
  /** Presses "Accedi" on the link's page: the form carries the anonymous CSRF token. */
  const signIn = async (token: string) => {
    const confirm = await call('GET', `/accesso?t=${token}`);
    // A spent link shows no form: the browser still has the site's CSRF cookie from another page.
    return call('POST', '/accesso', { token, _csrf: csrf(confirm.text) || csrf((await call('GET', '/accedi')).text) });
  };
  return {
    site, registry, call, csrf, requestLink, linkIn, mailbox, signIn,
    setNow: (iso: string) => (now = new Date(iso)),
    clearCookies: () => (cookies = new Map()),
    cookieJar: () => cookies,
  };
}

describe.each(BACKENDS)('the website on %s', (_, location) => {
  beforeEach(() => {
    backend = location;
  });

  it('answers the same for known and unknown addresses, and mails a link only to an account', async () => {
    const { requestLink, mailbox } = await setUp();
    const known = await requestLink('shop@example.it');
    const unknown = await requestLink('nobody@example.it');
    expect(known.status).toBe(200);
    expect(unknown.status).toBe(known.status);
    expect(unknown.text).toBe(known.text);
    expect(mailbox.map((m) => m.to)).toEqual(['shop@example.it']);
    expect(mailbox[0]!.text).toMatch(/http:\/\/127\.0\.0\.1:8080\/accesso\?t=/);
  });

  it('signs in once with a link, which then cannot be reused', async () => {
    const { requestLink, mailbox, linkIn, call, clearCookies, csrf, signIn } = await setUp();
    await requestLink('shop@example.it');
    const path = linkIn(mailbox[0]!).replace('http://127.0.0.1:8080', '');
    const confirm = await call('GET', path);
    expect(confirm.status).toBe(200);
    const token = /name="token" value="([^"]+)"/.exec(confirm.text)![1]!;
    const signedIn = await call('POST', '/accesso', { token, _csrf: csrf(confirm.text) });
    expect(signedIn).toMatchObject({ status: 303, headers: { location: '/account' } });
    expect(signedIn.headers['set-cookie']).toMatch(/^sessione=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Lax; Max-Age=86400$/);
    expect((await call('GET', '/account')).text).toContain('shop@example.it');
    clearCookies();
    expect((await signIn(token)).status).toBe(410);
    expect((await call('GET', path)).status).toBe(410);
  });

  it('refuses an expired link', async () => {
    const { requestLink, mailbox, linkIn, call, setNow, signIn } = await setUp();
    await requestLink('shop@example.it');
    const token = new URL(linkIn(mailbox[0]!)).searchParams.get('t')!;
    setNow('2026-11-22T10:15:01Z');
    expect((await call('GET', `/accesso?t=${token}`)).status).toBe(410);
    expect((await signIn(token)).status).toBe(410);
  });

  it('refuses a forged form without the CSRF token', async () => {
    const { requestLink, mailbox, linkIn, call, signIn } = await setUp();
    expect((await call('POST', '/accedi', { email: 'shop@example.it' })).status).toBe(403);
    expect(mailbox).toHaveLength(0);
    await requestLink('shop@example.it');
    const token = new URL(linkIn(mailbox[0]!)).searchParams.get('t')!;
    // A page elsewhere posting someone's link (login CSRF) is refused, and the link stays usable.
    expect((await call('POST', '/accesso', { token })).status).toBe(403);
    expect((await call('POST', '/accesso', { token, _csrf: 'forged-forged-forged-forged-forged-forged-fo' })).status).toBe(403);
    expect((await signIn(token)).status).toBe(303);
    for (const path of ['/account/chiavi', '/esci-ovunque', '/esci']) {
      expect((await call('POST', path, { label: 'x' })).status).toBe(403);
      expect((await call('POST', path, { label: 'x', _csrf: 'forged' })).status).toBe(403);
    }
    expect((await call('GET', '/account')).status).toBe(200);
  });

  it('creates one key when the key form is sent twice (a reload)', async () => {
    const { requestLink, mailbox, linkIn, call, registry, signIn } = await setUp();
    await requestLink('shop@example.it');
    await signIn(new URL(linkIn(mailbox[0]!)).searchParams.get('t')!);
    const page = (await call('GET', '/account')).text;
    const form = { _csrf: /name="_csrf" value="([^"]+)"/.exec(page)![1]!, _form: /name="_form" value="([^"]+)"/.exec(page)![1]!, label: 'cassa' };
    expect((await call('POST', '/account/chiavi', form)).text).toMatch(/id="new-key-value">ttd_/);
    const again = await call('POST', '/account/chiavi', form);
    expect(again.text).not.toContain('new-key-value');
    expect(again.text).toContain('era già stata eseguita');
    const account = (await registry.findAccount('shop@example.it'))!;
    expect(await registry.listKeys(account.id)).toHaveLength(1);
  });

  it('limits sign-in requests per address', async () => {
    const { requestLink, mailbox } = await setUp();
    for (let i = 0; i < 3; i++) expect((await requestLink('shop@example.it')).status).toBe(200);
    expect((await requestLink('shop@example.it')).status).toBe(429);
    expect(mailbox).toHaveLength(3);
  });

  it('limits sign-in requests per client, by X-Forwarded-For only behind a trusted proxy', async () => {
    const direct = await setUp('http://127.0.0.1:8080', { perClient: 2 });
    expect((await direct.requestLink('a@example.it', '10.0.0.1', '1.1.1.1')).status).toBe(200);
    expect((await direct.requestLink('b@example.it', '10.0.0.1', '2.2.2.2')).status).toBe(200);
    expect((await direct.requestLink('c@example.it', '10.0.0.1', '3.3.3.3')).status).toBe(429);
    // One trusted proxy appends the address it saw; what the client wrote before it is not believed.
    const proxied = await setUp('http://127.0.0.1:8080', { perClient: 2, trustProxy: 1 });
    for (const client of ['1.1.1.1', '2.2.2.2', '3.3.3.3']) expect((await proxied.requestLink(`${client}@example.it`, '10.0.0.1', `9.9.9.9, ${client}`)).status).toBe(200);
    await proxied.requestLink('x@example.it', '10.0.0.1', '1.1.1.1');
    expect((await proxied.requestLink('y@example.it', '10.0.0.1', 'spoofed-each-time, 1.1.1.1')).status).toBe(429);
    // Two proxies in front: the client is the second entry from the right.
    const twoHops = await setUp('http://127.0.0.1:8080', { perClient: 1, trustProxy: 2 });
    expect((await twoHops.requestLink('a@example.it', '10.0.0.2', 'forged, 4.4.4.4, 10.0.0.1')).status).toBe(200);
    expect((await twoHops.requestLink('b@example.it', '10.0.0.2', 'other, 4.4.4.4, 10.0.0.1')).status).toBe(429);
  });

  it('ignores a cookie that does not decode instead of failing every page', async () => {
    const { site } = await setUp();
    const response = await site({ method: 'GET', path: '/accedi', query: new URLSearchParams(), remoteAddress: '127.0.0.1', headers: { cookie: 'x=%; y=%E0%A4%A; csrf=%' }, body: async () => Buffer.alloc(0) });
    expect(response.status).toBe(200);
    expect(response.headers['set-cookie']).toMatch(/^csrf=/);
  });

  it('answers a sign-in request before any account lookup or mail work, known address or not', async () => {
    // A mailer that holds every message until released: the answer must not wait for it.
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const held: MailMessage[] = [];
    const { call, csrf, site } = await setUp('http://127.0.0.1:8080', { mailer: { description: 'held', send: async (message) => { await gate; held.push(message); } } });
    const ask = async (email: string) => call('POST', '/accedi', { _csrf: csrf((await call('GET', '/accedi')).text), email });
    const known = await ask('shop@example.it');
    const unknown = await ask('nobody@example.it');
    expect([known.status, unknown.status]).toEqual([200, 200]);
    expect(unknown.text).toBe(known.text);
    expect(held).toHaveLength(0);
    release();
    await site.settled();
    expect(held.map((message) => message.to)).toEqual(['shop@example.it']);
  });

  it('sends security headers on every page and Secure cookies over https', async () => {
    const { call } = await setUp('https://tariffa.example.it');
    const response = await call('GET', '/accedi');
    expect(response.headers).toMatchObject({
      'content-security-policy': expect.stringContaining("script-src 'self'"),
      'x-frame-options': 'DENY',
      'referrer-policy': 'no-referrer',
      'x-content-type-options': 'nosniff',
    });
    expect(response.headers['content-security-policy']).not.toContain('unsafe-inline');
    expect(response.headers['strict-transport-security']).toBe('max-age=31536000');
    expect(response.headers['set-cookie']).toMatch(/^__Host-csrf=.*; Secure$/);
    expect((await (await setUp()).call('GET', '/accedi')).headers['strict-transport-security']).toBeUndefined();
    expect(response.text).not.toMatch(/<script>(?!<\/script>)/);
  });
});
