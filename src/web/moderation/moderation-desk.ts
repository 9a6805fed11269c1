import { moderationActions } from '../../registry/moderation-actions.ts';
import { isTariffError } from '../../errors.ts';
import { deskErrorText } from './desk-errors.ts';
import type { WebSession } from '../../registry/registry.ts';
import { route, type Route } from '../../server/router.ts';
import { deskDecision, type Desk } from './desk-decisions.ts';
import { confirmDecisionPage, deskPage } from './desk-pages.ts';
import type { SiteKit } from '../site-kit.ts';

/** Barcodes shown per status: the desk is for deciding, `tariff barcodes list` for everything. */
const BARCODES_PER_STATUS = 30;
const AUDIT_SHOWN = 50;

/** What the desk says after a decision (the redirect carries the key, so a reload does not decide twice). */
const OUTCOMES = new Map<string, string>(
  Object.entries({
    approvato: 'Codice approvato: entra nel prossimo rilascio.',
    revocato: 'Codice revocato: esce dal prossimo rilascio e non accetta altre segnalazioni.',
    'account-bloccato': 'Account bloccato: le sue chiavi non funzionano più e i suoi voti non contano.',
    'account-sbloccato': 'Account sbloccato.',
    'punto-bloccato': 'Punto vendita bloccato: i suoi voti non contano e le sue segnalazioni sono rifiutate.',
    'punto-sbloccato': 'Punto vendita sbloccato.',
    'registrazione-approvata': "Registrazione approvata: l'account è attivo e gli è stata scritta un'e-mail.",
    'registrazione-rifiutata': "Registrazione rifiutata: gli è stata scritta un'e-mail.",
    'registrazione-decisa': 'Questa registrazione era già stata decisa.',
  }),
);

/**
 * The administrators' moderation desk (`/moderazione`): barcodes in conflict or to confirm with
 * their votes, approve with a chosen match or revoke; block and unblock an account or an
 * integration's point of sale; approve or refuse waiting sign-ups; the audit log. Every decision
 * is asked, confirmed on a page of its own, then made through the same code as the CLI's.
 * For anyone but an administrator it does not exist (the site's 404).
 */
export function moderationRoutes(site: SiteKit): Route[] {
  const { registry, options } = site;
  const desk: Desk = { site, actions: moderationActions(registry), tariffHas: options.tariffHas ?? (() => false) };

  const render = async (current: WebSession, extra: { notice?: string; error?: string } = {}, status = 200) => {
    const listed = [
      ...(await registry.listBarcodes('conflict')).slice(0, BARCODES_PER_STATUS),
      ...(await registry.listBarcodes('to_confirm')).slice(0, BARCODES_PER_STATUS),
    ];
    const barcodes = await Promise.all(
      listed.map(async (summary) => ({ summary, votes: (await registry.barcodeVotes(summary.gtin14)).votes })),
    );
    const [signUps, audit] = await Promise.all([registry.pendingSignUps(), registry.auditLog(AUDIT_SHOWN)]);
    return site.page(status, deskPage({ csrf: current.csrfToken, signUps, barcodes, audit, ...extra }));
  };

  // Every method: whatever is asked, anyone but an administrator must get the site's 404, never a 405.
  return [
    route(
      '*',
      '/moderazione',
      site.administrator(async ({ request, session }) => {
        if (request.method !== 'GET') return site.notFound();
        // A Map: `?esito=constructor` must find nothing, not Object's own properties.
        const outcome = OUTCOMES.get(request.query.get('esito') ?? '');
        return render(session, outcome ? { notice: outcome } : {});
      }),
    ),
    route(
      '*',
      '/moderazione/:action',
      site.administrator(async ({ request, params, session, form }) => {
        const chosen = request.method === 'POST' ? await deskDecision(desk, params.action!, form) : null;
        if (!chosen) return site.notFound();
        if (form.get('conferma') !== '1' && chosen.question)
          return site.page(200, confirmDecisionPage(session.csrfToken, params.action!, chosen.question, chosen.fields, chosen.danger));
        try {
          const outcome = await chosen.perform(`web (${session.account.email})`, options.now());
          options.log({ event: 'web.moderation', account: session.account.id, action: params.action, outcome });
          return site.redirect(`/moderazione?esito=${outcome}`);
        } catch (error) {
          if (!isTariffError(error)) throw error;
          return render(session, { error: `Non eseguito: ${deskErrorText(error)}` }, 400);
        }
      }),
    ),
  ];
}
