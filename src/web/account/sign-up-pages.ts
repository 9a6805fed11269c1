import { ACCOUNT_TYPES, type AccountType } from '../../registry/registry.ts';
import { html, type SafeHtml } from '../html.ts';
import { layout, TYPE_NAMES } from '../pages.ts';
import { USAGE_RULES, USAGE_RULES_VERSION } from './usage-rules.ts';
import { ORGANISATION_LENGTH } from '../../inputs/input-schemas.ts';

export interface SignUpForm {
  email?: string;
  type?: string;
  organisation?: string;
  message?: SafeHtml;
}

const TYPE_HINTS: Record<AccountType, string> = {
  User: 'una tabaccheria o un punto vendita',
  Supplier: 'un produttore o distributore',
  Integration: 'un software per più punti vendita (cassa, gestionale); il suo limite di segnalazioni lo alza il gestore',
};

export function signUpPage(csrf: string, form: SignUpForm = {}, approvalTypes: readonly AccountType[] = []): string {
  return layout(
    'Registrati',
    html`<h1>Registrati</h1>
${form.message ?? ''}
<form class="card" method="post" action="/registrati">
  <input type="hidden" name="_csrf" value="${csrf}">
  <label for="email">Indirizzo e-mail</label>
  <p><input id="email" name="email" type="email" autocomplete="email" required value="${form.email ?? ''}"></p>
  <label for="organisation">Organizzazione (ragione sociale o insegna)</label>
  <p><input id="organisation" name="organisation" type="text" autocomplete="organization" required maxlength="${ORGANISATION_LENGTH.max}" value="${form.organisation ?? ''}"></p>
  <fieldset>
    <legend>Tipo di account</legend>
    ${ACCOUNT_TYPES.map((type) => html`<p><input type="radio" id="type-${type}" name="type" value="${type}" required${form.type === type ? html` checked` : ''}> <label class="inline" for="type-${type}">${TYPE_NAMES[type]}: ${TYPE_HINTS[type]}${approvalTypes.includes(type) ? " (attivato dopo l'approvazione di un amministratore)" : ''}</label></p>`)}
  </fieldset>
  <h2 id="regole">Regole d'uso</h2>
  <ol class="rules" aria-labelledby="regole">${USAGE_RULES.map((rule) => html`<li>${rule}</li>`)}</ol>
  <p><input type="checkbox" id="accept" name="accept" value="${USAGE_RULES_VERSION}" required> <label class="inline" for="accept">Ho letto e accetto le regole d'uso (versione ${USAGE_RULES_VERSION}).</label></p>
  <button type="submit">Registrati</button>
</form>
<p class="muted">Hai già un account? <a href="/accedi">Accedi</a>.</p>`,
  );
}

export function signUpSentPage(minutes: number): string {
  return layout(
    'Controlla la posta',
    html`<h1>Controlla la posta</h1>
<p class="notice">Ti abbiamo scritto all'indirizzo indicato: apri il link nell'e-mail per confermare la registrazione. Il link vale ${minutes} minuti e si può usare una sola volta.</p>
<p><a href="/accedi">Vai all'accesso</a></p>`,
  );
}

export function confirmSignUpPage(token: string, csrf: string): string {
  return layout(
    'Conferma la registrazione',
    html`<h1>Conferma la registrazione</h1>
<form class="card" method="post" action="/conferma-registrazione">
  <input type="hidden" name="_csrf" value="${csrf}">
  <input type="hidden" name="token" value="${token}">
  <p>Stai per confermare la registrazione al servizio dati della tariffa dei tabacchi.</p>
  <button type="submit">Conferma la registrazione</button>
</form>`,
  );
}

export function signUpClosedPage(): string {
  return layout(
    'Registrazione chiusa',
    html`<h1>Registrazione chiusa</h1>
<p class="notice">Le nuove registrazioni sono chiuse. Per un account scrivi al gestore del servizio indicando la tua rivendita o la tua integrazione.</p>
<p><a href="/accedi">Vai all'accesso</a></p>`,
  );
}

export function signUpEmail(link: string, minutes: number): { subject: string; text: string; html: string } {
  return {
    subject: 'Conferma la registrazione al servizio dati della tariffa tabacchi',
    text: `Buongiorno,\n\nper confermare la registrazione al servizio dati della tariffa tabacchi apri questo link:\n\n${link}\n\nIl link vale ${minutes} minuti e si può usare una sola volta.\nSe non hai chiesto tu di registrarti, ignora questo messaggio: nessun account sarà creato.\n`,
    html: html`<p>Buongiorno,</p><p>per confermare la registrazione al servizio dati della tariffa tabacchi apri questo link:</p><p><a href="${link}">Conferma la registrazione</a></p><p>Il link vale ${minutes} minuti e si può usare una sola volta. Se non hai chiesto tu di registrarti, ignora questo messaggio: nessun account sarà creato.</p>`
      .value,
  };
}

/** To an address that has an account already: the same mail arrives either way, so the form tells nobody which addresses exist. */
export function alreadyRegisteredEmail(signInUrl: string): { subject: string; text: string; html: string } {
  return {
    subject: 'Conferma la registrazione al servizio dati della tariffa tabacchi',
    text: `Buongiorno,\n\nè stata chiesta una registrazione con questo indirizzo, che ha già un account.\nPer entrare usa l'accesso: ${signInUrl}\n\nSe non sei stato tu, ignora questo messaggio.\n`,
    html: html`<p>Buongiorno,</p><p>è stata chiesta una registrazione con questo indirizzo, che ha già un account.</p><p>Per entrare usa l'accesso: <a href="${signInUrl}">${signInUrl}</a></p><p>Se non sei stato tu, ignora questo messaggio.</p>`
      .value,
  };
}

export function signUpDecidedEmail(approved: boolean, signInUrl: string): { subject: string; text: string; html: string } {
  const text = approved
    ? `la tua registrazione al servizio dati della tariffa tabacchi è stata approvata: l'account è attivo.\nPer entrare: ${signInUrl}`
    : 'la tua registrazione al servizio dati della tariffa tabacchi non è stata approvata. Per chiarimenti scrivi al gestore del servizio.';
  return {
    subject: approved ? 'Il tuo account è attivo' : 'La tua registrazione non è stata approvata',
    text: `Buongiorno,\n\n${text}\n`,
    html: html`<p>Buongiorno,</p><p>${text}</p>`.value,
  };
}
