import { moderationActions } from '../registry/moderation-actions.ts';
import { isTariffError } from '../errors.ts';
import { deskErrorText } from './desk-errors.ts';
import type { WebSession } from '../registry/registry.ts';
import { route, type Route } from '../server/router.ts';
import { confirmDecisionPage, deskPage, matchText } from './desk-pages.ts';
import { signUpDecidedEmail } from './sign-up-pages.ts';
import type { SiteKit } from './site-kit.ts';
import { parseTariffCode } from '../source/tariff-code.ts';

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

interface Decision {
  question: string;
  fields: Record<string, string>;
  danger: boolean;
  perform: (actor: string, now: Date) => Promise<string>;
}

/**
 * The administrators' moderation desk (`/moderazione`): barcodes in conflict or to confirm with
 * their votes, approve with a chosen match or revoke; block and unblock an account or an
 * integration's point of sale; approve or refuse waiting sign-ups; the audit log. Every decision
 * is asked, confirmed on a page of its own, then made through the same code as the CLI's.
 * For anyone but an administrator it does not exist (the site's 404).
 */
export function moderationRoutes(site: SiteKit): Route[] {
  const { registry, options } = site;
  const actions = moderationActions(registry);
  const tariffHas = options.tariffHas ?? (() => false);

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

  const decision = async (action: string, fields: URLSearchParams): Promise<Decision | null> => {
    const field = (name: string) => (fields.get(name) ?? '').trim();
    const blocking = field('azione') === 'blocca';
    switch (action) {
      case 'approva': {
        const [code, kind, units] =
          field('match') === 'altro' || !field('match') ? [field('admCode'), field('kind'), field('units')] : field('match').split(':');
        const match = { admCode: code, kind, units: kind === 'carton' ? Number(units) : undefined };
        const admCode = parseTariffCode(code);
        const shown =
          admCode !== null ? matchText({ admCode, kind: kind === 'carton' ? 'carton' : 'pack', units: Number(units) || 1 }) : String(code);
        return {
          question: `Approvare il codice a barre ${field('barcode')} con l'abbinamento ${shown}? Vale qualunque cosa dicano i voti, finché un amministratore non decide altrimenti.`,
          fields: {
            barcode: field('barcode'),
            match: 'altro',
            admCode: String(code ?? ''),
            kind: String(kind ?? ''),
            units: String(units ?? ''),
          },
          danger: false,
          perform: async (actor, now) => (await actions.approve(field('barcode'), match, actor, now, tariffHas), 'approvato'),
        };
      }
      case 'revoca':
        return {
          question: `Revocare il codice a barre ${field('barcode')}? Esce dal prossimo rilascio e non accetta più segnalazioni.`,
          fields: { barcode: field('barcode') },
          danger: true,
          perform: async (actor, now) => (await actions.revoke(field('barcode'), actor, now), 'revocato'),
        };
      case 'account':
        return {
          question: blocking
            ? `Bloccare l'account ${field('email')}? Le sue chiavi smettono subito di funzionare e i suoi voti non contano più.`
            : `Sbloccare l'account ${field('email')}?`,
          fields: { email: field('email'), azione: field('azione') },
          danger: blocking,
          perform: async (actor, now) => (
            await actions.blockAccount(field('email'), blocking, actor, now),
            blocking ? 'account-bloccato' : 'account-sbloccato'
          ),
        };
      case 'punto-vendita':
        return {
          question: blocking
            ? `Bloccare il punto vendita «${field('contributorRef')}» dell'integrazione ${field('email')}? Le sue segnalazioni saranno rifiutate e i suoi voti non conteranno.`
            : `Sbloccare il punto vendita «${field('contributorRef')}» dell'integrazione ${field('email')}?`,
          fields: { email: field('email'), contributorRef: field('contributorRef'), azione: field('azione') },
          danger: blocking,
          perform: async (actor, now) => (
            await actions.blockContributor(field('email'), field('contributorRef'), blocking, actor, now),
            blocking ? 'punto-bloccato' : 'punto-sbloccato'
          ),
        };
      case 'approva-registrazione':
      case 'rifiuta-registrazione': {
        const approve = action === 'approva-registrazione';
        const signUp = (await registry.pendingSignUps()).find((candidate) => String(candidate.id) === field('id'));
        if (!signUp) return { question: '', fields: {}, danger: false, perform: async () => 'registrazione-decisa' };
        return {
          question: approve
            ? `Approvare la registrazione di ${signUp.email} (${signUp.organisation})? L'account diventa attivo e riceve un'e-mail.`
            : `Rifiutare la registrazione di ${signUp.email} (${signUp.organisation})? Riceve un'e-mail.`,
          fields: { id: String(signUp.id) },
          danger: !approve,
          perform: async (actor, now) => {
            const decided = await registry.decideSignUp(signUp.id, approve, actor, now);
            if (!decided) return 'registrazione-decisa';
            await options.mailer
              .send({ to: signUp.email, ...signUpDecidedEmail(approve, site.siteLink('/accedi')) })
              .catch((error: unknown) => options.log({ event: 'mail.failed', error: (error as Error).message }));
            return approve ? 'registrazione-approvata' : 'registrazione-rifiutata';
          },
        };
      }
      default:
        return null;
    }
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
        const chosen = request.method === 'POST' ? await decision(params.action!, form) : null;
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
