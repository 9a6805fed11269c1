import { beforeEach, describe, expect, it } from 'vitest';
import type { MailMessage, Mailer } from '../../src/mail/mailer.ts';
import type { Account, Registry } from '../../src/registry/registry.ts';
import { BACKENDS, type RegistryLocation } from '../helpers/registries.ts';
import { waitFor } from '../helpers/wait-for.ts';
import type { HttpRequest, HttpResponse } from '../../src/server/http.ts';
import { createWebsite, type SignUpPolicy } from '../../src/web/website.ts';
import { checkItem } from '../../src/barcodes/validate-item.ts';
import { USAGE_RULES_VERSION } from '../../src/web/account/usage-rules.ts';
import type { ReleaseNotes } from '../../src/web/releases/release-notes.ts';
import { summariseChanges } from '../../src/dataset/summarise-changes.ts';
import { RenderCache } from '../../src/web/render-cache.ts';

/** The website in-process with a clock the test moves, a real SQLite registry and a mailbox. */
let backend: () => Promise<RegistryLocation>;

async function setUp(
  siteUrl = 'http://127.0.0.1:8080',
  extra: {
    perClient?: number;
    trustProxy?: number;
    mailer?: Mailer;
    signUp?: SignUpPolicy;
    registry?: Registry;
    history?: { recent: () => Promise<ReleaseNotes[]> };
  } = {},
) {
  const registry = extra.registry ?? (await (await backend()).open());
  if (!extra.registry) await registry.createAccount({ email: 'shop@example.it', type: 'User' }, new Date());
  let now = new Date('2026-11-22T10:00:00Z');
  const mailbox: MailMessage[] = [];
  const site = createWebsite({
    registry,
    now: () => now,
    siteUrl: () => siteUrl,
    signInTtlMs: 15 * 60_000,
    sessionTtlMs: 86_400_000,
    limits: { perAddress: 3, perClient: extra.perClient ?? 100 },
    trustProxy: extra.trustProxy,
    log: () => {},
    mailer: extra.mailer ?? { description: 'test', send: async (message) => void mailbox.push(message) },
    history: extra.history ?? { recent: async () => [] },
    // The tariff served: the codes the tests' barcodes are matched to.
    tariffHas: (admCode) => admCode === 1001 || admCode === 1002,
    signUp: extra.signUp,
  });
  let cookies = new Map<string, string>();
  const call = async (
    method: string,
    path: string,
    form?: Record<string, string>,
    remoteAddress = '127.0.0.1',
    forwardedFor?: string,
  ): Promise<HttpResponse & { text: string }> => {
    const [pathname, query = ''] = path.split('?');
    const request: HttpRequest = {
      method,
      path: pathname!,
      query: new URLSearchParams(query),
      remoteAddress,
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
    const response = await call(
      'POST',
      '/accedi',
      { _csrf: csrf((await call('GET', '/accedi')).text), email },
      remoteAddress,
      forwardedFor,
    );
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
    site,
    registry,
    call,
    csrf,
    requestLink,
    linkIn,
    mailbox,
    signIn,
    setNow: (iso: string) => (now = new Date(iso)),
    clearCookies: () => (cookies = new Map()),
    cookieJar: () => cookies,
  };
}

describe.each(BACKENDS)('the website on %s', (_, location) => {
  beforeEach(() => {
    backend = location;
  });

  it('greets a visitor at / with what the service is and where to go; a signed-in account goes to its page; an icon', async () => {
    const { requestLink, mailbox, linkIn, call, csrf } = await setUp();
    const home = await call('GET', '/');
    expect(home.status).toBe(200);
    for (const link of ['/aggiornamenti', '/registrati', '/accedi', '/openapi.json']) expect(home.text).toContain(`href="${link}"`);
    expect(home.text).toContain('Agenzia delle Dogane e dei Monopoli');
    const icon = await call('GET', '/favicon.ico');
    expect(icon).toMatchObject({ status: 200, headers: { 'content-type': 'image/svg+xml' } });
    await requestLink('shop@example.it');
    const confirm = await call('GET', linkIn(mailbox[0]!).replace('http://127.0.0.1:8080', ''));
    const token = /name="token" value="([^"]+)"/.exec(confirm.text)![1]!;
    await call('POST', '/accesso', { token, _csrf: csrf(confirm.text) });
    expect(await call('GET', '/')).toMatchObject({ status: 303, headers: { location: '/account' } });
  });

  it('forgets the work it deferred once done: 10,000 sign-in requests leave none behind', async () => {
    const { site, call, csrf } = await setUp(undefined, { perClient: 20_000 });
    const token = csrf((await call('GET', '/accedi')).text);
    for (let i = 0; i < 10_000; i += 1)
      expect((await call('POST', '/accedi', { _csrf: token, email: `nobody${i}@example.it` })).status).toBe(200);
    // Never told to settle: each deferred lookup goes once it is done.
    await waitFor(async () => site.deferred() === 0, 'the deferred work to be forgotten');
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
    const form = {
      _csrf: /name="_csrf" value="([^"]+)"/.exec(page)![1]!,
      _form: /name="_form" value="([^"]+)"/.exec(page)![1]!,
      label: 'cassa',
    };
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
    for (const client of ['1.1.1.1', '2.2.2.2', '3.3.3.3'])
      expect((await proxied.requestLink(`${client}@example.it`, '10.0.0.1', `9.9.9.9, ${client}`)).status).toBe(200);
    await proxied.requestLink('x@example.it', '10.0.0.1', '1.1.1.1');
    expect((await proxied.requestLink('y@example.it', '10.0.0.1', 'spoofed-each-time, 1.1.1.1')).status).toBe(429);
    // Two proxies in front: the client is the second entry from the right.
    const twoHops = await setUp('http://127.0.0.1:8080', { perClient: 1, trustProxy: 2 });
    expect((await twoHops.requestLink('a@example.it', '10.0.0.2', 'forged, 4.4.4.4, 10.0.0.1')).status).toBe(200);
    expect((await twoHops.requestLink('b@example.it', '10.0.0.2', 'other, 4.4.4.4, 10.0.0.1')).status).toBe(429);
  });

  it('ignores a cookie that does not decode instead of failing every page', async () => {
    const { site } = await setUp();
    const response = await site({
      method: 'GET',
      path: '/accedi',
      query: new URLSearchParams(),
      remoteAddress: '127.0.0.1',
      headers: { cookie: 'x=%; y=%E0%A4%A; csrf=%' },
      body: async () => Buffer.alloc(0),
    });
    expect(response.status).toBe(200);
    expect(response.headers['set-cookie']).toMatch(/^csrf=/);
  });

  it('answers a sign-in request before any account lookup or mail work, known address or not', async () => {
    // A mailer that holds every message until released: the answer must not wait for it.
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const held: MailMessage[] = [];
    const { call, csrf, site } = await setUp('http://127.0.0.1:8080', {
      mailer: {
        description: 'held',
        send: async (message) => {
          await gate;
          held.push(message);
        },
      },
    });
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

describe.each(BACKENDS)('sign-up on the website on %s', (_, location) => {
  beforeEach(() => {
    backend = location;
  });

  /** Fills the sign-up form as a browser would, and waits for the mail work done after the answer. */
  const signUp = async (stand: Awaited<ReturnType<typeof setUp>>, fields: Record<string, string>, remoteAddress?: string) => {
    const form = await stand.call('GET', '/registrati');
    const response = await stand.call(
      'POST',
      '/registrati',
      { _csrf: stand.csrf(form.text), type: 'User', organisation: 'Tabaccheria Nuova', accept: USAGE_RULES_VERSION, ...fields },
      remoteAddress,
    );
    await stand.site.settled();
    return response;
  };
  const linkOf = (text: string) => /http:\/\/127\.0\.0\.1:8080(\/conferma-registrazione\?t=[A-Za-z0-9_-]+)/.exec(text)?.[1];

  it('shows the usage rules in full, and creates the account only when the e-mail link is confirmed', async () => {
    const stand = await setUp();
    const form = await stand.call('GET', '/registrati');
    expect(form.status).toBe(200);
    for (const words of [
      'Un solo account per organizzazione',
      'Nessuna chiamata per ogni vendita',
      'codici a barre letti davvero',
      'pubblicità o marketing',
      'blocco dell&#39;account',
    ])
      expect(form.text).toContain(words);

    expect((await signUp(stand, { email: 'Nuova@Example.it' })).status).toBe(200);
    expect(await stand.registry.findAccount('nuova@example.it')).toBeNull();
    const path = linkOf(stand.mailbox[0]!.text)!;
    // Opening the link (a mail scanner does) uses nothing.
    expect((await stand.call('GET', path)).status).toBe(200);
    expect((await stand.call('GET', path)).status).toBe(200);
    const confirm = await stand.call('GET', path);
    const token = /name="token" value="([^"]+)"/.exec(confirm.text)![1]!;
    const done = await stand.call('POST', '/conferma-registrazione', { token, _csrf: stand.csrf(confirm.text) });
    expect(done).toMatchObject({ status: 303, headers: { location: '/account?benvenuto=1' } });
    expect((await stand.call('GET', '/account?benvenuto=1')).text).toContain('Benvenuto');
    expect(await stand.registry.findAccount('nuova@example.it')).toMatchObject({
      type: 'User',
      organisation: 'Tabaccheria Nuova',
      rulesVersion: USAGE_RULES_VERSION,
      rulesAcceptedAt: '2026-11-22T10:00:00.000Z',
    });
    stand.clearCookies();
    expect((await stand.call('GET', path)).status).toBe(410);
  });

  it('gives two plus-addressed sign-ups of one mailbox no way to approve a barcode, fresh or vetted', async () => {
    const stand = await setUp();
    const accounts: Account[] = [];
    for (const [i, email] of ['anna+1@tabacchi.it', 'anna+2@tabacchi.it'].entries()) {
      // Two organisation names, as someone gaming the quorum would give.
      expect((await signUp(stand, { email, organisation: `Tabaccheria ${i + 1}` }, `10.0.1.${i}`)).status).toBe(200);
      const confirm = await stand.call('GET', linkOf(stand.mailbox.at(-1)!.text)!);
      const token = /name="token" value="([^"]+)"/.exec(confirm.text)![1]!;
      expect((await stand.call('POST', '/conferma-registrazione', { token, _csrf: stand.csrf(confirm.text) })).status).toBe(303);
      stand.clearCookies();
      accounts.push((await stand.registry.findAccount(email))!);
    }
    const vote = (account: Account) =>
      stand.registry.submitBarcodes(
        {
          account,
          periodStart: '2026-11-22T10:00:00.000Z',
          checks: [checkItem({ barcode: '8001001001005', admCode: 1001 }, 'User', () => true)],
        },
        new Date('2026-11-22T10:00:00Z'),
      );
    for (const account of accounts) await vote(account);
    expect((await stand.registry.barcodeVotes('08001001001005')).summary!.status).toBe('to_confirm');
    // Vetted (by the operator, or by age): still one mailbox, so one organisation and one vote.
    for (const account of accounts) await stand.registry.vetAccount(account.email, 'test', new Date('2026-11-22T10:00:00Z'));
    expect((await stand.registry.barcodeVotes('08001001001005')).summary!.status).toBe('to_confirm');
    expect((await stand.registry.barcodeVotes('08001001001005')).votes.map((v) => v.notCounted)).toEqual([null, 'same_organisation']);
    expect(await stand.registry.approvedBarcodes()).toEqual([]);
  });

  it('looks nothing up and writes nothing before its answer to /accedi and /registrati is out, so timing tells nothing', async () => {
    const registry = await (await backend()).open();
    await registry.createAccount({ email: 'shop@example.it', type: 'User' }, new Date());
    const events: string[] = [];
    const watched: Registry = {
      ...registry,
      findAccount: (...args) => (events.push('lookup'), registry.findAccount(...args)),
      createSignInToken: (...args) => (events.push('insert'), registry.createSignInToken(...args)),
      createSignUp: (...args) => (events.push('insert'), registry.createSignUp(...args)),
    };
    const stand = await setUp('http://127.0.0.1:8080', { registry: watched });
    for (const email of ['shop@example.it', 'nobody@example.it']) {
      events.length = 0;
      const form = { _csrf: stand.csrf((await stand.call('GET', '/accedi')).text), email };
      expect((await stand.call('POST', '/accedi', form)).status).toBe(200);
      events.push('answered');
      await stand.site.settled();
      expect(events[0]).toBe('answered');
      expect(events).toContain('lookup');

      events.length = 0;
      const signUpForm = {
        _csrf: stand.csrf((await stand.call('GET', '/registrati')).text),
        email: email.replace('@', '+new@'),
        type: 'User',
        organisation: 'Tabaccheria',
        accept: USAGE_RULES_VERSION,
      };
      expect((await stand.call('POST', '/registrati', signUpForm)).status).toBe(200);
      events.push('answered');
      await stand.site.settled();
      expect(events[0]).toBe('answered');
      expect(events).toContain('lookup');
    }
  });

  it('answers the same, and in the same way, whether or not the address has an account', async () => {
    // A mailer that never finishes: the answer cannot be waiting for the lookup or the mail.
    const stuck: MailMessage[] = [];
    const stand = await setUp('http://127.0.0.1:8080', {
      mailer: {
        description: 'stuck',
        send: (message) => {
          stuck.push(message);
          return new Promise(() => {});
        },
      },
    });
    const form = await stand.call('GET', '/registrati');
    const send = (email: string) =>
      stand.call('POST', '/registrati', {
        _csrf: stand.csrf(form.text),
        email,
        type: 'User',
        organisation: 'Tabaccheria',
        accept: USAGE_RULES_VERSION,
      });
    const known = await send('shop@example.it');
    const unknown = await send('nobody@example.it');
    expect(known.status).toBe(200);
    expect(unknown.status).toBe(known.status);
    expect(unknown.text).toBe(known.text);
    expect(unknown.headers).toEqual(known.headers);
    await waitFor(() => stuck.length === 2, 'both mails');
    // The account holder learns that a sign-up was asked with its address; nobody else does.
    expect(stuck.find((m) => m.to === 'shop@example.it')!.text).toContain('ha già un account');
    expect(linkOf(stuck.find((m) => m.to === 'nobody@example.it')!.text)).toBeDefined();
  });

  it('limits sign-ups per address and per client, refuses forged or incomplete forms, and can be closed', async () => {
    const stand = await setUp('http://127.0.0.1:8080', { perClient: 4 });
    for (let i = 0; i < 3; i++) expect((await signUp(stand, { email: 'ripetuta@example.it' })).status).toBe(200);
    expect((await signUp(stand, { email: 'ripetuta@example.it' })).status).toBe(429);
    expect((await signUp(stand, { email: 'altra@example.it' }, '10.0.0.1')).status).toBe(200);
    expect((await signUp(stand, { email: 'altra2@example.it' })).status).toBe(429);
    expect(stand.mailbox).toHaveLength(4);

    expect(
      (await stand.call('POST', '/registrati', { email: 'x@example.it', type: 'User', organisation: 'X', accept: USAGE_RULES_VERSION }))
        .status,
    ).toBe(403);
    const noRules = await signUp(stand, { email: 'senza@example.it', accept: '' }, '10.0.0.2');
    expect(noRules.status).toBe(400);
    expect(noRules.text).toContain('devi accettare le regole d&#39;uso');
    expect((await signUp(stand, { email: 'tipo@example.it', type: 'Admin' }, '10.0.0.2')).status).toBe(400);
    expect(stand.mailbox).toHaveLength(4);

    const closed = await setUp('http://127.0.0.1:8080', { signUp: { open: false, approvalTypes: [] } });
    expect((await closed.call('GET', '/registrati')).status).toBe(403);
  });

  it('creates no account from a link sent while sign-up was open once it is closed', async () => {
    const open = await setUp();
    expect((await signUp(open, { email: 'tardiva@example.it' })).status).toBe(200);
    const path = linkOf(open.mailbox[0]!.text)!;
    const form = await open.call('GET', path);
    const token = /name="token" value="([^"]+)"/.exec(form.text)![1]!;
    // The service restarted with TARIFF_SIGNUP=closed, on the same registry.
    const closed = await setUp('http://127.0.0.1:8080', { signUp: { open: false, approvalTypes: [] }, registry: open.registry });
    expect((await closed.call('GET', path)).status).toBe(403);
    const page = await closed.call('GET', '/accedi');
    expect((await closed.call('POST', '/conferma-registrazione', { token, _csrf: closed.csrf(page.text) })).status).toBe(403);
    expect(await open.registry.findAccount('tardiva@example.it')).toBeNull();
  });

  it('leaves an Integration waiting for an administrator by default', async () => {
    const stand = await setUp();
    await signUp(stand, { email: 'software@example.it', type: 'Integration', organisation: 'Cassa Srl' });
    const confirm = await stand.call('GET', linkOf(stand.mailbox[0]!.text)!);
    const done = await stand.call('POST', '/conferma-registrazione', {
      token: /name="token" value="([^"]+)"/.exec(confirm.text)![1]!,
      _csrf: stand.csrf(confirm.text),
    });
    expect(done.status).toBe(200);
    expect(done.text).toContain('un amministratore esaminerà la richiesta');
    expect(done.headers['set-cookie']).toBeUndefined();
    expect(await stand.registry.findAccount('software@example.it')).toBeNull();
    expect((await stand.registry.pendingSignUps()).map((p) => [p.email, p.organisation])).toEqual([['software@example.it', 'Cassa Srl']]);
  });
});

describe.each(BACKENDS)('the moderation desk on %s', (_, location) => {
  beforeEach(() => {
    backend = location;
  });

  /** Signs the test's browser in as `email` (an account made an administrator when asked). */
  const signedIn = async (stand: Awaited<ReturnType<typeof setUp>>, email: string, admin: boolean) => {
    if (!(await stand.registry.findAccount(email))) await stand.registry.createAccount({ email, type: 'User' }, new Date());
    if (admin) await stand.registry.setAdmin(email, true, 'test', new Date());
    stand.clearCookies();
    stand.mailbox.length = 0;
    await stand.requestLink(email);
    const token = new URL(stand.linkIn(stand.mailbox[0]!)).searchParams.get('t')!;
    expect((await stand.signIn(token)).status).toBe(303);
  };

  it('does not exist for anyone but an administrator', async () => {
    const stand = await setUp();
    const unknownPage = await stand.call('GET', '/nessuna-pagina');
    for (const path of ['/moderazione', '/moderazione/revoca']) {
      const anonymous = await stand.call('GET', path);
      expect(anonymous.status).toBe(404);
      expect(anonymous.text).toBe(unknownPage.text);
    }
    await signedIn(stand, 'shop@example.it', false);
    expect((await stand.call('GET', '/moderazione')).status).toBe(404);
    const account = await stand.call('GET', '/account');
    expect(account.text).not.toContain('/moderazione');
    expect(
      (await stand.call('POST', '/moderazione/revoca', { _csrf: stand.csrf(account.text), barcode: '8001001001005', conferma: '1' }))
        .status,
    ).toBe(404);
  });

  it('says on the desk why the vote of a self-service account not yet vetted does not count, and from when it will', async () => {
    const stand = await setUp();
    const at = new Date('2026-11-22T10:00:00Z');
    const tokenHash = 'd'.repeat(64);
    const signUp = { email: 'nuovo@example.it', type: 'User' as const, organisation: 'Nuovo', rulesVersion: '1', tokenHash };
    await stand.registry.createSignUp({ ...signUp, expiresAt: new Date('2026-11-22T11:00:00Z') }, at);
    const { account } = (await stand.registry.confirmSignUp(tokenHash, [], at)) as { account: Account };
    const checks = [checkItem({ barcode: '8001001001005', admCode: 1001 }, 'User', () => true)];
    await stand.registry.submitBarcodes({ account, periodStart: '2026-11-22T10:00:00.000Z', checks }, at);
    await signedIn(stand, 'capo@example.it', true);
    const desk = await stand.call('GET', '/moderazione');
    expect(desk.text).toContain('nuovo@example.it');
    expect(desk.text).toContain(
      'no: account iscritto da sé, non ancora verificato (conta dal 29/11/26, 11:00, o prima se lo verifica un amministratore)',
    );
  });

  it('asks to confirm each decision, makes it through the same code as the CLI, and shows it in the audit log', async () => {
    const stand = await setUp();
    const voter = await stand.registry.createAccount({ email: 'voter@example.it', type: 'Supplier' }, new Date());
    const checks = [
      { barcode: '8001001001005', admCode: 1001 },
      { barcode: '80000006', admCode: 1002 },
    ].map((item) => checkItem(item, 'Supplier', () => true));
    await stand.registry.submitBarcodes({ account: voter, periodStart: '2026-11-22T10:00:00.000Z', checks }, new Date());
    await signedIn(stand, 'capo@example.it', true);
    const desk = await stand.call('GET', '/moderazione');
    expect(desk.status).toBe(200);
    expect(desk.text).toContain('voter@example.it');
    const csrf = stand.csrf(desk.text);

    const asked = await stand.call('POST', '/moderazione/revoca', { _csrf: csrf, barcode: '8001001001005' });
    expect(asked.status).toBe(200);
    expect(asked.text).toContain('Revocare il codice a barre 8001001001005?');
    expect((await stand.registry.barcodeVotes('08001001001005')).summary!.status).toBe('to_confirm');
    const done = await stand.call('POST', '/moderazione/revoca', { _csrf: csrf, barcode: '8001001001005', conferma: '1' });
    expect(done).toMatchObject({ status: 303, headers: { location: '/moderazione?esito=revocato' } });
    expect((await stand.registry.barcodeVotes('08001001001005')).summary).toMatchObject({ status: 'revoked', adminDecision: 'revoked' });

    await stand.call('POST', '/moderazione/approva', { _csrf: csrf, barcode: '80000006', match: '1002:carton:10', conferma: '1' });
    expect((await stand.registry.barcodeVotes('00000080000006')).summary).toMatchObject({
      status: 'approved',
      match: { admCode: 1002, kind: 'carton', units: 10 },
    });
    await stand.call('POST', '/moderazione/account', { _csrf: csrf, email: 'voter@example.it', azione: 'blocca', conferma: '1' });
    expect((await stand.registry.findAccount('voter@example.it'))!.blocked).toBe(true);
    const refused = await stand.call('POST', '/moderazione/account', {
      _csrf: csrf,
      email: 'nessuno@example.it',
      azione: 'blocca',
      conferma: '1',
    });
    expect(refused.status).toBe(400);
    // The desk says it in Italian, from the error's code, never with the command line's English.
    expect(refused.text).toContain('Non eseguito: Non esiste un account per nessuno@example.it.');
    expect(refused.text).not.toContain('There is no account');
    expect((await stand.call('POST', '/moderazione/revoca', { _csrf: 'forged', barcode: '80000006', conferma: '1' })).status).toBe(403);

    // One rule for tariff codes: what is not a code, or not in the tariff served, is refused; nothing changes.
    const italian = {
      '9999': 'Il codice tariffa 9999 non è nella tariffa pubblicata',
      '0x10': '«0x10» non è un codice tariffa: un numero intero da 1 a 9 cifre.',
      '1e20': '«1e20» non è un codice tariffa',
      '99999999999': '«99999999999» non è un codice tariffa',
    };
    for (const [admCode, said] of Object.entries(italian)) {
      const wrong = await stand.call('POST', '/moderazione/approva', {
        _csrf: csrf,
        barcode: '80000006',
        match: 'altro',
        admCode,
        kind: 'pack',
        conferma: '1',
      });
      expect(wrong.status).toBe(400);
      expect(wrong.text).toContain(said);
    }
    expect((await stand.registry.barcodeVotes('00000080000006')).summary).toMatchObject({ match: { admCode: 1002 } });
    const notIntegration = await stand.call('POST', '/moderazione/punto-vendita', {
      _csrf: csrf,
      email: 'voter@example.it',
      contributorRef: 'cassa-1',
      azione: 'blocca',
      conferma: '1',
    });
    expect(notIntegration.status).toBe(400);
    expect(notIntegration.text).toContain('voter@example.it non è un account Integration: non ha punti vendita.');
    expect((await stand.call('GET', '/moderazione?esito=constructor')).text).not.toContain('function');

    const log = await stand.call('GET', '/moderazione?esito=account-bloccato');
    expect(log.text).toContain('Account bloccato');
    expect((await stand.registry.auditLog(3)).map((e) => [e.action, e.actor])).toEqual([
      ['account.block', 'web (capo@example.it)'],
      ['barcode.approve', 'web (capo@example.it)'],
      ['barcode.revoke', 'web (capo@example.it)'],
    ]);
  });
});

describe('the public release pages under a release with 10,000 price changes', () => {
  const rises = Array.from({ length: 10_000 }, (_, i) => ({
    admCode: 100_000 + i,
    name: `PRODOTTO ${i}`,
    pack: 'astuccio da 20 pezzi',
    before: 600,
    after: 650,
    effectiveFrom: '2026-12-01',
  }));
  const notes: ReleaseNotes = {
    version: '20261201.1',
    tariffDate: '2026-12-01',
    generatedAt: '2026-12-01T00:05:00+01:00',
    products: 10_000,
    barcodes: 0,
    changesSince: '20261101.1',
    summary: { ...summariseChanges([]), priceRises: 10_000 },
    rises,
    cuts: [],
    added: [],
    removed: [],
    other: [],
    totals: { rises: 10_000, cuts: 0, added: 0, removed: 0, other: 0 },
    byCategory: [{ category: 'cigarettes', rises: 10_000, cuts: 0 }],
  };

  it('pages the list, 500 lines a page, answers an unknown page with 404, and a repeated visit with 304', async () => {
    backend = BACKENDS[0]![1];
    const stand = await setUp('http://127.0.0.1:8080', { history: { recent: async () => [notes] } });
    const first = await stand.call('GET', '/aggiornamenti/20261201.1');
    expect(first.status).toBe(200);
    expect(first.text.match(/<li>/g)).toHaveLength(500);
    expect(first.text).toContain('Pagina 1 di 20');
    expect(first.text).toContain('href="/aggiornamenti/20261201.1?pagina=2"');
    const last = await stand.call('GET', '/aggiornamenti/20261201.1?pagina=20');
    expect(last.text).toContain('PRODOTTO 9999');
    expect(last.text).not.toContain('PRODOTTO 9499<');
    for (const page of ['21', '0', 'due', '1e3'])
      expect((await stand.call('GET', `/aggiornamenti/20261201.1?pagina=${page}`)).status).toBe(404);
    const etag = String(first.headers.etag);
    const again = await stand.site({
      method: 'GET',
      path: '/aggiornamenti/20261201.1',
      query: new URLSearchParams(),
      remoteAddress: '127.0.0.1',
      headers: { 'if-none-match': etag },
      body: async () => Buffer.alloc(0),
    });
    expect(again).toMatchObject({ status: 304, body: null });
  });
});

describe('RenderCache', () => {
  it('renders a page once, and keeps at most its bound, dropping the least recently used', () => {
    const cache = new RenderCache(2);
    let renders = 0;
    // Kept as UTF-8 bytes.
    const page = (key: string) => ({ body: cache.get(key, () => `page ${key} ${(renders += 1)} €`).body.toString('utf8') });
    expect(page('a').body).toBe('page a 1 €');
    expect(page('a').body).toBe('page a 1 €');
    page('b');
    page('a');
    page('c');
    expect(renders).toBe(3);
    expect(page('a').body).toBe('page a 1 €');
    expect(page('b').body).toBe('page b 4 €');
  });
});
