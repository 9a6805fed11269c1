import type { ModerationActions } from '../../registry/moderation-actions.ts';
import { parseTariffCode } from '../../source/tariff-code.ts';
import { matchText } from './desk-pages.ts';
import { signUpDecidedEmail } from '../account/sign-up-pages.ts';
import type { SiteKit } from '../site-kit.ts';
import { parseWholeNumber } from '../../util/whole-number.ts';

/** What the desk's decisions act through: the site, the actions shared with the CLI, the tariff's codes. */
export interface Desk {
  site: SiteKit;
  actions: ModerationActions;
  tariffHas: (admCode: number) => boolean;
}

/**
 * One decision an administrator asked for: the question its confirmation page puts, the fields it
 * carries to the confirmed request, and what it does (returning the outcome key the desk shows).
 */
export interface Decision {
  question: string;
  fields: Record<string, string>;
  danger: boolean;
  perform: (actor: string, now: Date) => Promise<string>;
}

type Field = (name: string) => string;
type DecisionOf = (desk: Desk, field: Field) => Decision | Promise<Decision>;

/** The match an approval names: one of the votes' (`code:kind:units`), or another typed in. */
function approvedMatch(field: Field) {
  const chosen = field('match');
  const [code = '', kind = '', units = ''] =
    chosen === 'altro' || !chosen ? [field('admCode'), field('kind'), field('units')] : chosen.split(':');
  const admCode = parseTariffCode(code);
  // Units read as on every surface (util/whole-number.ts): `1e3` or `0x10` stay text, which the approval refuses.
  const count = units === '' ? undefined : (parseWholeNumber(units, 0, Number.MAX_SAFE_INTEGER) ?? units);
  const shown = admCode !== null ? matchText({ admCode, kind: kind === 'carton' ? 'carton' : 'pack', units: Number(count) || 1 }) : code;
  return { code, kind, units, shown, match: { admCode: code, kind, units: kind === 'carton' ? count : undefined } };
}

const approve: DecisionOf = (desk, field) => {
  const { code, kind, units, shown, match } = approvedMatch(field);
  return {
    question: `Approvare il codice a barre ${field('barcode')} con l'abbinamento ${shown}? Vale qualunque cosa dicano i voti, finché un amministratore non decide altrimenti.`,
    fields: { barcode: field('barcode'), match: 'altro', admCode: code, kind, units },
    danger: false,
    perform: async (actor, now) => (await desk.actions.approve(field('barcode'), match, actor, now, desk.tariffHas), 'approvato'),
  };
};

const revoke: DecisionOf = (desk, field) => ({
  question: `Revocare il codice a barre ${field('barcode')}? Esce dal prossimo rilascio e non accetta più segnalazioni.`,
  fields: { barcode: field('barcode') },
  danger: true,
  perform: async (actor, now) => (await desk.actions.revoke(field('barcode'), actor, now), 'revocato'),
});

const blockAccount: DecisionOf = (desk, field) => {
  const blocking = field('azione') === 'blocca';
  return {
    question: blocking
      ? `Bloccare l'account ${field('email')}? Le sue chiavi smettono subito di funzionare e i suoi voti non contano più.`
      : `Sbloccare l'account ${field('email')}?`,
    fields: { email: field('email'), azione: field('azione') },
    danger: blocking,
    perform: async (actor, now) => {
      await desk.actions.blockAccount(field('email'), blocking, actor, now);
      return blocking ? 'account-bloccato' : 'account-sbloccato';
    },
  };
};

const blockContributor: DecisionOf = (desk, field) => {
  const blocking = field('azione') === 'blocca';
  const which = `il punto vendita «${field('contributorRef')}» dell'integrazione ${field('email')}`;
  return {
    question: blocking ? `Bloccare ${which}? Le sue segnalazioni saranno rifiutate e i suoi voti non conteranno.` : `Sbloccare ${which}?`,
    fields: { email: field('email'), contributorRef: field('contributorRef'), azione: field('azione') },
    danger: blocking,
    perform: async (actor, now) => {
      await desk.actions.blockContributor(field('email'), field('contributorRef'), blocking, actor, now);
      return blocking ? 'punto-bloccato' : 'punto-sbloccato';
    },
  };
};

/** Approving or refusing a waiting sign-up; one decided meanwhile (by another administrator) is said so. */
const decideSignUp =
  (approving: { approve: boolean }): DecisionOf =>
  async (desk, field): Promise<Decision> => {
    const { registry, options, siteLink } = desk.site;
    const { approve } = approving;
    const signUp = (await registry.pendingSignUps()).find((candidate) => String(candidate.id) === field('id'));
    if (!signUp) return { question: '', fields: {}, danger: false, perform: async () => 'registrazione-decisa' };
    const who = `${signUp.email} (${signUp.organisation})`;
    return {
      question: approve
        ? `Approvare la registrazione di ${who}? L'account diventa attivo e riceve un'e-mail.`
        : `Rifiutare la registrazione di ${who}? Riceve un'e-mail.`,
      fields: { id: String(signUp.id) },
      danger: !approve,
      perform: async (actor, now) => {
        const decided = await registry.decideSignUp(signUp.id, approve, actor, now);
        if (!decided) return 'registrazione-decisa';
        await options.mailer
          .send({ to: signUp.email, ...signUpDecidedEmail(approve, siteLink('/accedi')) })
          .catch((error: unknown) => options.log({ event: 'mail.failed', error: (error as Error).message }));
        return approve ? 'registrazione-approvata' : 'registrazione-rifiutata';
      },
    };
  };

/** The desk's actions by the name in their address (`/moderazione/<action>`); a Map, so `constructor` names none. */
const DECISIONS = new Map<string, DecisionOf>([
  ['approva', approve],
  ['revoca', revoke],
  ['account', blockAccount],
  ['punto-vendita', blockContributor],
  ['approva-registrazione', decideSignUp({ approve: true })],
  ['rifiuta-registrazione', decideSignUp({ approve: false })],
]);

/** The decision a desk form asks for, read from its fields; null for an action the desk does not have. */
export async function deskDecision(desk: Desk, action: string, fields: URLSearchParams): Promise<Decision | null> {
  const decisionOf = DECISIONS.get(action);
  return decisionOf ? decisionOf(desk, (name) => (fields.get(name) ?? '').trim()) : null;
}
