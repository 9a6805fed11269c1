import { normaliseEmail } from '../../inputs/input-schemas.ts';
import { ACCOUNT_TYPES, type AccountType } from '../../registry/registry.ts';
import type { HttpResponse } from '../../server/http.ts';
import type { FormContext } from '../../server/middleware/form-body.ts';
import { route, type Route, type RouteContext, type RouteHandler } from '../../server/router.ts';
import { sha256Hex } from '../../util/digests.ts';
import { html } from '../html.ts';
import { messagePage } from '../pages.ts';
import { alreadyRegisteredEmail, confirmSignUpPage, signUpClosedPage, signUpEmail, signUpPage, signUpSentPage } from './sign-up-pages.ts';
import { randomToken, type SignUpPolicy, type SiteKit } from '../site-kit.ts';
import { USAGE_RULES_VERSION } from './usage-rules.ts';
import { oneLine } from '../../util/clean-text.ts';
import { organisationSchema, ORGANISATION_LENGTH } from '../../inputs/input-schemas.ts';

export const DEFAULT_SIGN_UP_POLICY: SignUpPolicy = { open: true, approvalTypes: ['Integration'] };

/** What is wrong with a sign-up form, in the words the page shows, or null. */
function signUpProblem(values: { email: string | null; type: string; organisation: string }, accepted: string | null): string | null {
  if (!values.email) return 'Scrivi un indirizzo e-mail valido.';
  if (!(ACCOUNT_TYPES as readonly string[]).includes(values.type)) return 'Scegli il tipo di account.';
  if (!organisationSchema.safeParse(values.organisation).success)
    return `Scrivi il nome dell'organizzazione (da ${ORGANISATION_LENGTH.min} a ${ORGANISATION_LENGTH.max} caratteri).`;
  if (accepted !== USAGE_RULES_VERSION) return "Per registrarti devi accettare le regole d'uso.";
  return null;
}

/** Self-service sign-up: the form with the usage rules, and the e-mail link that confirms it. */
export function signUpRoutes(site: SiteKit): Route[] {
  const { registry, options } = site;
  const policy = options.signUp ?? DEFAULT_SIGN_UP_POLICY;
  const invalidLink = () =>
    site.page(
      410,
      messagePage(
        'Link non valido',
        'Questo link di registrazione è scaduto, è già stato usato oppure non è valido. Registrati di nuovo.',
        { href: '/registrati', label: 'Vai alla registrazione' },
      ),
    );
  const whenOpen =
    <C extends RouteContext>(next: RouteHandler<C>): RouteHandler<C> =>
    async (ctx) =>
      policy.open ? next(ctx) : site.page(403, signUpClosedPage());

  const sendSignUpLink = async (request: { email: string; type: AccountType; organisation: string }, now: Date) => {
    if (await registry.findAccount(request.email)) {
      await options.mailer.send({ to: request.email, ...alreadyRegisteredEmail(site.siteLink('/accedi')) });
      return;
    }
    const token = randomToken();
    const expiresAt = new Date(now.getTime() + options.signInTtlMs);
    await registry.createSignUp({ ...request, rulesVersion: USAGE_RULES_VERSION, tokenHash: sha256Hex(token), expiresAt }, now);
    await options.mailer.send({ to: request.email, ...signUpEmail(site.siteLink(`/conferma-registrazione?t=${token}`), site.minutes) });
  };

  const confirm = async ({ form }: FormContext): Promise<HttpResponse> => {
    const now = options.now();
    const confirmed = await registry.confirmSignUp(sha256Hex(form.get('token') ?? ''), policy.approvalTypes, now);
    if (!confirmed) return invalidLink();
    if (confirmed.outcome === 'awaiting_approval') {
      options.log({ event: 'web.sign_up_waiting', type: confirmed.signUp.type });
      const next = { href: '/aggiornamenti', label: 'Intanto, gli aggiornamenti della tariffa' };
      const text = "Grazie: un amministratore esaminerà la richiesta. Riceverai un'e-mail quando l'account sarà attivo.";
      return site.page(200, messagePage('Registrazione confermata', text, next, 'notice'));
    }
    if (confirmed.outcome === 'existed') {
      const text = 'Questo indirizzo ha già un account: entra con il link di accesso.';
      return site.page(200, messagePage('Account già esistente', text, { href: '/accedi', label: "Vai all'accesso" }, 'notice'));
    }
    options.log({ event: 'web.sign_up', account: confirmed.account.id });
    return site.signInAs(confirmed.account.id, now, '/account?benvenuto=1');
  };

  return [
    route(
      'GET',
      '/registrati',
      whenOpen(async ({ request }) => {
        if (await site.session(request)) return site.redirect('/account');
        const csrf = site.anonymousCsrf(request);
        return site.page(200, signUpPage(csrf.token, {}, policy.approvalTypes), csrf.headers);
      }),
    ),
    route(
      'POST',
      '/registrati',
      whenOpen(
        site.anonymousForm(async ({ request, form }) => {
          const values = {
            email: form.get('email') ?? '',
            type: form.get('type') ?? '',
            // Stored as one clean line: an operator's terminal prints it (tariff accounts list).
            organisation: oneLine(form.get('organisation') ?? ''),
          };
          const email = normaliseEmail(values.email);
          const problem = signUpProblem({ ...values, email }, form.get('accept'));
          if (problem) {
            const message = html`<p class="error" role="alert">${problem}</p>`;
            return site.page(400, signUpPage(form.get('_csrf')!, { ...values, message }, policy.approvalTypes));
          }
          const now = options.now();
          if (!(await site.withinLimits(request, 'sign-up', email!, now))) return site.tooMany();
          // The same page, in the same time, whether or not the address has an account: the lookup,
          // the request and the mail happen after the answer (as for sign-in links).
          site.later(() => sendSignUpLink({ email: email!, type: values.type as AccountType, organisation: values.organisation }, now));
          return site.page(200, signUpSentPage(site.minutes));
        }),
      ),
    ),
    // Closing sign-up also stops the links already sent: none of them creates an account any more.
    route('GET', '/conferma-registrazione', whenOpen(site.linkPage(registry.signUpUsable, invalidLink, confirmSignUpPage))),
    route('POST', '/conferma-registrazione', whenOpen(site.anonymousForm(confirm))),
  ];
}
