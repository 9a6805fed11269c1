import { normaliseEmail } from '../../inputs/input-schemas.ts';
import { route, type Route } from '../../server/router.ts';
import { sha256Hex } from '../../util/digests.ts';
import { serializeCookie } from '../../server/cookies.ts';
import { html } from '../html.ts';
import { confirmSignInPage, homePage, linkSentPage, messagePage, signInEmail, signInPage } from '../pages.ts';
import { randomToken, type SiteKit } from '../site-kit.ts';

/** Sign-in by e-mail link (request, confirm) and sign-out, here or everywhere. */
export function signInRoutes(site: SiteKit): Route[] {
  const { registry, options } = site;
  const invalidLink = () =>
    site.page(
      410,
      messagePage('Link non valido', 'Questo link di accesso è scaduto, è già stato usato oppure non è valido. Chiedine uno nuovo.'),
    );

  const sendSignInLink = async (email: string, now: Date) => {
    const account = await registry.findAccount(email);
    if (!account || account.blocked) return;
    const token = randomToken();
    await registry.createSignInToken(account.id, sha256Hex(token), new Date(now.getTime() + options.signInTtlMs), now);
    await options.mailer.send({ to: email, ...signInEmail(site.siteLink(`/accesso?t=${token}`), site.minutes) });
  };
  const signedOut = () =>
    site.redirect('/accedi', { 'set-cookie': serializeCookie(site.sessionCookie, '', { secure: site.secure, maxAgeSeconds: 0 }) });

  return [
    route('GET', '/', async ({ request }) => ((await site.session(request)) ? site.redirect('/account') : site.page(200, homePage()))),
    route('GET', '/accedi', async ({ request }) => {
      if (await site.session(request)) return site.redirect('/account');
      const csrf = site.anonymousCsrf(request);
      return site.page(200, signInPage(csrf.token), csrf.headers);
    }),
    route(
      'POST',
      '/accedi',
      site.anonymousForm(async ({ request, form }) => {
        const email = normaliseEmail(form.get('email') ?? '');
        if (!email) {
          const message = html`<p class="error" role="alert">Scrivi un indirizzo e-mail valido.</p>`;
          return site.page(400, signInPage(form.get('_csrf')!, { email: form.get('email') ?? '', message }));
        }
        const now = options.now();
        if (!(await site.withinLimits(request, 'sign-in', email, now))) return site.tooMany();
        // The same page, in the same time, whether or not the address has an account: the lookup,
        // the token and the mail happen after the answer, so neither the page nor its timing tells.
        site.later(() => sendSignInLink(email, now));
        return site.page(200, linkSentPage(site.minutes));
      }),
    ),
    route('GET', '/accesso', site.linkPage(registry.signInTokenUsable, invalidLink, confirmSignInPage)),
    route(
      'POST',
      '/accesso',
      // Like every form: a page elsewhere must not sign this browser into another account.
      site.anonymousForm(async ({ form }) => {
        const now = options.now();
        const account = await registry.consumeSignInToken(sha256Hex(form.get('token') ?? ''), now);
        if (!account) {
          options.metrics?.accessRefused('sign-in', 'invalid_link');
          return invalidLink();
        }
        options.log({ event: 'web.sign_in', account: account.id });
        return site.signInAs(account.id, now, '/account');
      }),
    ),
    route(
      'POST',
      '/esci',
      site.signedIn(async ({ session }) => {
        await registry.deleteSession(session.idHash);
        return signedOut();
      }),
    ),
    route(
      'POST',
      '/esci-ovunque',
      site.signedIn(async ({ session }) => {
        const ended = await registry.deleteAccountSessions(session.account.id, options.now());
        options.log({ event: 'web.sign_out_everywhere', account: session.account.id, sessions: ended });
        return signedOut();
      }),
    ),
  ];
}
