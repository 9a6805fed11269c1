import type { Account, ApiKeyRecord } from '../registry/registry.ts';
import { html, type SafeHtml } from './html.ts';
import { dataTable } from './data-table.ts';
import { MAX_LABEL_LENGTH } from '../inputs/input-schemas.ts';
import { READ_LIMIT } from '../registry/records.ts';

const dateTime = new Intl.DateTimeFormat('it-IT', { timeZone: 'Europe/Rome', dateStyle: 'short', timeStyle: 'short' });
const when = (iso: string | null) => (iso ? dateTime.format(new Date(iso)) : 'mai');
export const TYPE_NAMES: Record<Account['type'], string> = { User: 'Utente', Supplier: 'Fornitore', Integration: 'Integrazione' };

/** The page frame; `head` adds elements to <head> (the feed's link on the public pages). */
export function layout(title: string, body: SafeHtml, signedIn = false, head: SafeHtml | '' = ''): string {
  return html`<!doctype html>
<html lang="it">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Tariffa tabacchi</title>
<link rel="stylesheet" href="/static/style.css">
<link rel="icon" href="/static/favicon.svg" type="image/svg+xml">
${head}
</head>
<body>
<header><nav class="row"><a href="${signedIn ? '/account' : '/accedi'}">Tariffa tabacchi · servizio dati</a><span class="row"><a class="nav" href="/prodotti">Prodotti</a><a class="nav" href="/variazioni">Variazioni</a><a class="nav" href="/aggiornamenti">Aggiornamenti</a></span></nav></header>
<main>
${body}
</main>
<script src="/static/app.js" defer></script>
</body>
</html>
`.value;
}

const csrfField = (token: string) => html`<input type="hidden" name="_csrf" value="${token}">`;

/** The front page for a visitor: what the service is, and where to go from here. */
export function homePage(): string {
  return layout(
    'Benvenuto',
    html`<h1>La tariffa dei tabacchi lavorati, come dati</h1>
<p>Questo servizio pubblica più volte al giorno la tariffa di vendita al pubblico dei tabacchi lavorati dell'Agenzia delle Dogane e dei Monopoli, letta dai listini ufficiali, come un unico file da scaricare e tenere in locale (JSON, SQLite o NeDB), insieme ai codici a barre segnalati e verificati dalle tabaccherie.</p>
<ul>
  <li><a href="/prodotti">Prodotti</a>: cerca un prodotto per nome, codice AAMS o codice a barre, e guarda come è cambiato il suo prezzo nel tempo.</li>
  <li><a href="/variazioni">Variazioni</a>: i prezzi che cambieranno nei prossimi giorni, già annunciati dall'Agenzia.</li>
  <li><a href="/aggiornamenti">Aggiornamenti</a>: le ultime versioni pubblicate e cosa è cambiato (prezzi, nuovi prodotti, ritirati), anche come feed Atom.</li>
  <li><a href="/registrati">Registrati</a> per ottenere una chiave API, oppure <a href="/accedi">accedi</a> se hai già un account.</li>
  <li><a href="/openapi.json">Descrizione dell'API</a> (OpenAPI 3.1) per chi integra un gestionale o una cassa.</li>
</ul>
<p class="muted">Ogni account ha ${READ_LIMIT} letture al giorno: il file si scarica una volta e si aggiorna solo quando cambia la versione. I dati sono forniti senza garanzia di disponibilità, completezza o aggiornamento.</p>`,
  );
}

export function signInPage(csrf: string, options: { email?: string; message?: SafeHtml } = {}): string {
  return layout(
    'Accedi',
    html`<h1>Accedi</h1>
${options.message ?? ''}
<form class="card" method="post" action="/accedi">
  ${csrfField(csrf)}
  <p>Inserisci l'indirizzo e-mail del tuo account: ti invieremo un link per accedere, valido per pochi minuti e utilizzabile una sola volta.</p>
  <label for="email">Indirizzo e-mail</label>
  <p><input id="email" name="email" type="email" autocomplete="email" required value="${options.email ?? ''}"></p>
  <button type="submit">Inviami il link di accesso</button>
</form>
<p class="muted">Non hai un account? <a href="/registrati">Registrati</a>.</p>`,
  );
}

export function linkSentPage(minutes: number): string {
  return layout(
    'Controlla la posta',
    html`<h1>Controlla la posta</h1>
<p class="notice">Se l'indirizzo corrisponde a un account, riceverai a breve un'e-mail con il link per accedere. Il link vale ${minutes} minuti e si può usare una sola volta.</p>
<p><a href="/accedi">Torna all'accesso</a></p>`,
  );
}

export function confirmSignInPage(token: string, csrf: string): string {
  return layout(
    "Conferma l'accesso",
    html`<h1>Conferma l'accesso</h1>
<form class="card" method="post" action="/accesso">
  <input type="hidden" name="_csrf" value="${csrf}">
  <input type="hidden" name="token" value="${token}">
  <p>Stai per accedere al servizio dati della tariffa dei tabacchi da questo dispositivo.</p>
  <button type="submit">Accedi</button>
</form>
<p class="muted">Il link si usa premendo il pulsante, così i controlli automatici della posta non lo consumano.</p>`,
  );
}

export function messagePage(
  title: string,
  text: string,
  link: { href: string; label: string } = { href: '/accedi', label: "Torna all'accesso" },
  kind: 'error' | 'notice' = 'error',
  signedIn = false,
): string {
  return layout(title, html`<h1>${title}</h1><p class="${kind}">${text}</p><p><a href="${link.href}">${link.label}</a></p>`, signedIn);
}

export interface Counter {
  limit: number;
  used: number;
  resetsAt: Date;
}

export interface AccountView {
  account: Account;
  keys: ApiKeyRecord[];
  reads: Counter;
  submits: Counter;
  csrf: string;
  /** One-time token of the key form: sending the same form twice (a reload) creates one key. */
  formNonce: string;
  newKey?: { key: string; label: string };
  notice?: string;
  error?: string;
  maxKeys: number;
}

export function accountPage(view: AccountView): string {
  const { account, keys, reads, submits, csrf } = view;
  const counter = (name: string, c: Counter, period: string) => ({
    cells: [
      name,
      html`<span data-counter="${period}">${c.used} su ${c.limit}</span>`,
      Math.max(0, c.limit - c.used),
      dateTime.format(c.resetsAt),
    ],
  });
  return layout(
    'Il tuo account',
    html`<h1>Il tuo account</h1>
${view.notice ? html`<p class="notice" role="status">${view.notice}</p>` : ''}
${view.error ? html`<p class="error" role="alert">${view.error}</p>` : ''}
${view.newKey ? newKeyBox(view.newKey) : ''}
<section>
  <table>
    <tr><th scope="row">E-mail</th><td id="account-email">${account.email}</td></tr>
    <tr><th scope="row">Tipo di account</th><td>${TYPE_NAMES[account.type]}</td></tr>
  </table>
</section>
<h2>Utilizzo</h2>
<section>
  ${dataTable({
    columns: ['Contatore', { label: 'Usate', kind: 'amount' }, { label: 'Rimaste', kind: 'amount' }, { label: 'Si azzera', kind: 'when' }],
    rows: [counter('Letture di oggi', reads, 'read'), counter("Segnalazioni di quest'ora", submits, 'submit')],
    rowHeader: true,
  })}
  <p class="muted">Le letture si azzerano alle 00:00 UTC, le segnalazioni di codici a barre all'inizio di ogni ora. Orari in ora italiana.</p>
</section>
<h2>Chiavi API</h2>
<section>
  ${
    keys.length === 0
      ? html`<p>Nessuna chiave attiva.</p>`
      : dataTable({
          id: 'keys',
          columns: [
            'Etichetta',
            'Inizio della chiave',
            { label: 'Creata', kind: 'when' },
            { label: 'Ultimo uso', kind: 'when' },
            { label: 'Azioni', kind: 'actions' },
          ],
          rows: keys.map((key) => ({
            attributes: html` data-key="${key.prefix}"`,
            cells: [
              key.label || '—',
              html`<code>${key.prefix}…</code>`,
              when(key.createdAt),
              when(key.lastUsedAt),
              html`<a class="action" href="/account/chiavi/${key.id}/revoca">Revoca</a>`,
            ],
          })),
        })
  }
  <form method="post" action="/account/chiavi">
    ${csrfField(csrf)}
    <input type="hidden" name="_form" value="${view.formNonce}">
    <label for="label">Nuova chiave: etichetta (solo per te, ad esempio «cassa 1»)</label>
    <div class="row"><input id="label" name="label" type="text" maxlength="${MAX_LABEL_LENGTH}"><button type="submit">Crea una chiave</button></div>
    <p class="muted">Al massimo ${view.maxKeys} chiavi attive per account. Le chiavi di un account condividono gli stessi limiti.</p>
  </form>
</section>
<h2>Segnalazioni di codici a barre</h2>
<section>
  <p><a href="/account/segnalazioni">Le mie segnalazioni</a>: i codici a barre che hai segnalato, con il loro stato.</p>
  ${account.admin ? html`<p><a href="/moderazione">Moderazione</a>: codici da esaminare, registrazioni in attesa, blocchi, registro delle decisioni.</p>` : ''}
</section>
<h2>Sessioni</h2>
<section class="row">
  <form class="inline" method="post" action="/esci">${csrfField(csrf)}<button class="secondary" type="submit">Esci</button></form>
  <form class="inline" method="post" action="/esci-ovunque">${csrfField(csrf)}<button class="secondary" type="submit">Esci da tutti i dispositivi</button></form>
</section>`,
    true,
  );
}

function newKeyBox(newKey: { key: string; label: string }): SafeHtml {
  return html`<section class="warning" id="new-key">
  <p><strong>Ecco la nuova chiave${newKey.label ? html` «${newKey.label}»` : ''}. Copiala ora: non sarà più mostrata.</strong></p>
  <code class="key" id="new-key-value">${newKey.key}</code>
  <button type="button" data-copy="new-key-value" hidden>Copia</button>
  <p class="muted">Conservala come una password: chi la possiede consuma i limiti del tuo account. Se la perdi, revocala e creane un'altra.</p>
</section>`;
}

export function confirmRevokePage(key: ApiKeyRecord, csrf: string): string {
  return layout(
    'Revoca la chiave',
    html`<h1>Revoca la chiave</h1>
<form class="card" method="post" action="/account/chiavi/${key.id}/revoca">
  ${csrfField(csrf)}
  <p>Vuoi revocare la chiave <code>${key.prefix}…</code>${key.label ? html` («${key.label}»)` : ''}? La revoca è immediata e definitiva: le chiamate con questa chiave saranno rifiutate da subito.</p>
  <div class="row"><button class="danger" type="submit">Revoca la chiave</button><a href="/account">Annulla</a></div>
</form>`,
    true,
  );
}

export function signInEmail(link: string, minutes: number): { subject: string; text: string; html: string } {
  return {
    subject: 'Il tuo link di accesso al servizio dati della tariffa tabacchi',
    text: `Buongiorno,\n\nper accedere al servizio dati della tariffa tabacchi apri questo link:\n\n${link}\n\nIl link vale ${minutes} minuti e si può usare una sola volta.\nSe non hai chiesto tu di accedere, ignora questo messaggio.\n`,
    html: html`<p>Buongiorno,</p><p>per accedere al servizio dati della tariffa tabacchi apri questo link:</p><p><a href="${link}">Accedi al servizio</a></p><p>Il link vale ${minutes} minuti e si può usare una sola volta. Se non hai chiesto tu di accedere, ignora questo messaggio.</p>`
      .value,
  };
}
