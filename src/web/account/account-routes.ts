import { createKey } from '../../registry/create-key.ts';
import { isTariffError } from '../../errors.ts';
import { MAX_ACTIVE_KEYS, READ_LIMIT } from '../../registry/registry.ts';
import type { HttpResponse } from '../../server/http.ts';
import type { SignedIn } from '../../server/middleware/session.ts';
import { dayWindow, hourWindow } from '../../server/quota-window.ts';
import { route, type Route } from '../../server/router.ts';
import { accountPage, confirmRevokePage, messagePage } from '../pages.ts';
import { pageNumber, randomToken, type SiteKit } from '../site-kit.ts';
import { submissionsPage, SUBMISSIONS_PER_PAGE } from './submissions-page.ts';

type AccountExtra = { newKey?: { key: string; label: string }; notice?: string; error?: string };

/** The account page: usage, API keys (create, revoke) and the account's own barcode submissions. */
export function accountRoutes(site: SiteKit): Route[] {
  const { registry, options } = site;

  const render = async (session: SignedIn, extra: AccountExtra = {}, status = 200): Promise<HttpResponse> => {
    const now = options.now();
    const day = dayWindow(now);
    const hour = hourWindow(now);
    const { account } = session;
    const [keys, reads, submits] = await Promise.all([
      registry.listKeys(account.id),
      registry.usage(account.id, 'read', day.periodStart),
      registry.usage(account.id, 'submit', hour.periodStart),
    ]);
    const view = {
      account,
      keys,
      csrf: session.csrfToken,
      formNonce: randomToken(),
      maxKeys: MAX_ACTIVE_KEYS,
      ...extra,
      reads: { limit: READ_LIMIT, used: reads, resetsAt: day.resetsAt },
      submits: { limit: account.submitLimit, used: submits, resetsAt: hour.resetsAt },
    };
    return site.page(status, accountPage(view));
  };

  return [
    route(
      'GET',
      '/account',
      site.signedIn(async ({ request, session }) => {
        const welcome = "Benvenuto: l'account è attivo. Crea qui sotto la chiave API per il tuo software.";
        return render(session, request.query.get('benvenuto') === '1' ? { notice: welcome } : {});
      }),
    ),
    route(
      'GET',
      '/account/segnalazioni',
      site.signedIn(async ({ request, session }) => {
        const page = pageNumber(request.query.get('pagina'));
        if (page === null) return site.notFound();
        // One more than a page tells whether another page follows.
        const records = await registry.mySubmissions(session.account.id, SUBMISSIONS_PER_PAGE + 1, (page - 1) * SUBMISSIONS_PER_PAGE);
        const more = records.length > SUBMISSIONS_PER_PAGE;
        return site.page(200, submissionsPage(records.slice(0, SUBMISSIONS_PER_PAGE), page, more));
      }),
    ),
    route(
      'POST',
      '/account/chiavi',
      site.signedIn(async ({ session, form }) => {
        const label = form.get('label') ?? '';
        // A reload resends the form: its one-time token lets the first sending create a key and
        // the others only say so (the key itself is never stored, so it cannot be shown again).
        const nonce = form.get('_form') ?? '';
        if (!/^[A-Za-z0-9_-]{43}$/.test(nonce)) return site.forbidden();
        if (!(await registry.useFormOnce(session.idHash, nonce))) {
          const notice =
            "Questa richiesta era già stata eseguita: la chiave è stata creata e, per sicurezza, non può essere mostrata di nuovo. Se non l'hai copiata, revocala e creane un'altra.";
          return render(session, { notice });
        }
        try {
          const created = await createKey(registry, session.account, label, options.now(), `${session.account.email} (website)`);
          options.log({ event: 'web.key_created', account: session.account.id, prefix: created.record.prefix });
          // The label as stored: what the key list and the command line show.
          return render(session, { newKey: { key: created.key, label: created.record.label } });
        } catch (error) {
          if (!isTariffError(error, 'too_many_keys')) throw error;
          const message = `Hai già ${MAX_ACTIVE_KEYS} chiavi attive, il massimo per un account. Revoca prima una chiave, poi creane una nuova.`;
          return render(session, { error: message }, 409);
        }
      }),
    ),
    route(
      ['GET', 'POST'],
      '/account/chiavi/:id/revoca',
      site.signedIn(async ({ request, params, session }) => {
        const key = (await registry.listKeys(session.account.id)).find((candidate) => String(candidate.id) === params.id);
        if (!key) {
          const back = { href: '/account', label: "Torna all'account" };
          return site.page(404, messagePage('Chiave non trovata', 'Questa chiave non esiste o è già stata revocata.', back, 'error', true));
        }
        if (request.method === 'GET') return site.page(200, confirmRevokePage(key, session.csrfToken));
        await registry.revokeKey(session.account.id, key.prefix, `web (${session.account.email})`, options.now());
        options.log({ event: 'web.key_revoked', account: session.account.id, prefix: key.prefix });
        return render(session, { notice: `La chiave ${key.prefix}… è stata revocata.` });
      }),
    ),
  ];
}
