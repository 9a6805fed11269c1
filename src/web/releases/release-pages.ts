import { inUse, type KeyList } from '../../release/signing-keys.ts';
import { html, type SafeHtml } from '../html.ts';
import { layout } from '../pages.ts';
import { changeBars } from './change-bars.ts';
import { CATEGORY_LABELS, italianCount as count, italianDay as day, italianEuro as euro } from '../italian-labels.ts';
import { describeNotesItalian, NOTE_LISTS, type NoteLine, type NoteList, type ReleaseNotes } from './release-notes.ts';

/** Lines per list on the overview; the release's own pages list them all, this many per list and page. */
export const LINES_ON_OVERVIEW = 10;
export const LINES_PER_PAGE = 500;

const shortDateTime = new Intl.DateTimeFormat('it-IT', { timeZone: 'Europe/Rome', dateStyle: 'short', timeStyle: 'short' });

const feedLink = html`<link rel="alternate" type="application/atom+xml" title="Aggiornamenti della tariffa" href="/aggiornamenti.atom">`;

function line(l: NoteLine): SafeHtml {
  const product = html`<strong>${l.name}</strong> <span class="muted">(cod. ${l.admCode}, ${l.pack})</span>`;
  const from = l.effectiveFrom ? html` <span class="muted">dal ${day(l.effectiveFrom)}</span>` : '';
  if (l.what) return html`<li>${product}: ${l.what}</li>`;
  if (l.before !== null && l.after !== null) {
    const delta = l.after - l.before;
    return html`<li>${product}: ${euro(l.before)} → <strong>${euro(l.after)}</strong> <span class="${delta > 0 ? 'up' : 'down'}">${delta > 0 ? '+' : '−'}${euro(Math.abs(delta))}</span>${from}</li>`;
  }
  if (l.after !== null) return html`<li>${product}: ${euro(l.after)}${from}</li>`;
  return html`<li>${product}: ultimo prezzo ${euro(l.before!)}</li>`;
}

const LIST_TITLES: Record<NoteList, string> = {
  rises: 'Aumenti di prezzo',
  cuts: 'Riduzioni di prezzo',
  added: 'Nuovi prodotti',
  removed: 'Prodotti ritirati',
  other: 'Altre modifiche',
};

/** The five lists, each from line `from` (0 on the overview), at most `limit` lines each. */
function lists(notes: ReleaseNotes, limit: number, from = 0): SafeHtml {
  const list = (name: NoteList) => {
    const lines = notes[name];
    const total = notes.totals[name];
    if (lines.length <= from) return '';
    const overview = from === 0 && total > limit && limit === LINES_ON_OVERVIEW;
    const lastShown = from + limit >= lines.length;
    return html`<h3>${LIST_TITLES[name]} (${count.format(total)})</h3>
<ul class="changes"${from > 0 ? html` start="${from + 1}"` : ''}>${lines.slice(from, from + limit).map(line)}</ul>
${overview ? html`<p><a href="/aggiornamenti/${notes.version}">Vedi tutti i ${count.format(total)}</a></p>` : ''}${!overview && lastShown && total > lines.length ? html`<p class="notice">Gli altri ${count.format(total - lines.length)} non sono elencati qui: l'elenco completo è nel dataset (tabella <code>changes</code>).</p>` : ''}`;
  };
  return html`${NOTE_LISTS.map(list)}`;
}

/** How many prices rose and fell in each category: a bar chart, then the same counts as a table. */
function movesByCategory(notes: ReleaseNotes): SafeHtml | '' {
  if (notes.byCategory.length === 0) return '';
  const rows = notes.byCategory.map((row) => ({ label: CATEGORY_LABELS[row.category], rises: row.rises, cuts: row.cuts }));
  return html`<h2>Prezzi cambiati per categoria</h2>
${changeBars(rows, 'Aumenti e riduzioni di prezzo per categoria')}
<table class="moves"><thead><tr><th scope="col">Categoria</th><th scope="col">Aumenti</th><th scope="col">Riduzioni</th></tr></thead><tbody>${rows.map(
    (row) => html`<tr><th scope="row">${row.label}</th><td>${count.format(row.rises)}</td><td>${count.format(row.cuts)}</td></tr>`,
  )}</tbody></table>`;
}

function release(notes: ReleaseNotes, limit: number, heading: 'h1' | 'h2', from = 0): SafeHtml {
  const title = `Tariffa in vigore dal ${day(notes.tariffDate)}`;
  return html`<article>
${heading === 'h1' ? html`<h1>${title}</h1>` : html`<h2><a href="/aggiornamenti/${notes.version}">${title}</a></h2>`}
<p class="muted">Versione ${notes.version} · pubblicata il ${shortDateTime.format(new Date(notes.generatedAt))} · ${count.format(notes.products)} prodotti, ${count.format(notes.barcodes)} codici a barre</p>
<p>${notes.changesSince ? html`Rispetto alla versione ${notes.changesSince}: ` : ''}${describeNotesItalian(notes)}</p>
${heading === 'h1' && from === 0 ? movesByCategory(notes) : ''}
${lists(notes, limit, from)}
</article>`;
}

/** The public list of recent releases, newest first, each with what changed. */
export function releasesPage(releases: ReleaseNotes[], signedIn: boolean): string {
  return layout(
    'Aggiornamenti della tariffa',
    html`<h1>Aggiornamenti della tariffa</h1>
<p>I prezzi di vendita al pubblico dei tabacchi lavorati come li pubblica l'Agenzia delle Dogane e dei Monopoli: ogni rilascio del servizio dati, dal più recente, e cosa è cambiato rispetto al precedente. Per essere avvisati di ogni nuovo rilascio senza consumare letture: <a href="/aggiornamenti.atom">feed Atom</a>. Per verificare i manifest: le <a href="/chiavi-di-firma">chiavi di firma</a>.</p>
${releases.length === 0 ? html`<p class="notice">Nessun rilascio pubblicato finora.</p>` : releases.map((notes) => html`<section>${release(notes, LINES_ON_OVERVIEW, 'h2')}</section>`)}`,
    signedIn,
    feedLink,
  );
}

/** The public keys that sign the manifest, for integrators to pin (docs/sync.md, "Signed manifests"). */
export function signingKeysPage(list: KeyList, now: Date, signedIn: boolean): string {
  const row = (key: KeyList['keys'][number]) =>
    html`<tr><td><code>${key.keyId}:${key.publicKey}</code></td><td>${day(key.created.slice(0, 10))}</td><td>${
      key.retiredAt === null
        ? 'in uso'
        : inUse(key, now)
          ? html`in uso fino al ${shortDateTime.format(new Date(key.retiredAt))}`
          : html`ritirata dal ${shortDateTime.format(new Date(key.retiredAt))}`
    }</td></tr>`;
  return layout(
    'Chiavi di firma',
    html`<h1>Chiavi di firma</h1>
<p>Il manifest di ogni rilascio (<code>/v1/version</code>) è firmato (Ed25519) con una di queste chiavi e scade dopo pochi giorni: un programma di cassa che le conosce rifiuta un manifest alterato, scaduto o più vecchio dell'ultimo accettato. Con <code>tariff sync</code>: <code>--public-key</code> seguito dalla chiave come scritta qui sotto. Le stesse chiavi, in formato JSON: <a href="/.well-known/tariff-keys.json"><code>/.well-known/tariff-keys.json</code></a>.</p>
${
  list.keys.length === 0
    ? html`<p class="notice">I rilasci non sono firmati.</p>`
    : html`<table><thead><tr><th scope="col">Chiave</th><th scope="col">Creata</th><th scope="col">Stato</th></tr></thead><tbody>${list.keys.map(row)}</tbody></table>`
}`,
    signedIn,
  );
}

/** How many pages a release's own page has: its longest list, LINES_PER_PAGE lines a page. */
export const detailPageCount = (notes: ReleaseNotes) =>
  Math.max(1, Math.ceil(Math.max(...NOTE_LISTS.map((list) => notes[list].length)) / LINES_PER_PAGE));

/** One release with its changes listed, LINES_PER_PAGE per list on each page (`page` from 1), with links between pages. */
export function releaseDetailPage(notes: ReleaseNotes, signedIn: boolean, page = 1): string {
  const pages = detailPageCount(notes);
  const link = (n: number, label: string) => html`<a href="/aggiornamenti/${notes.version}${n > 1 ? `?pagina=${n}` : ''}">${label}</a>`;
  const nav =
    pages > 1
      ? html`<nav class="pages"><p>Pagina ${page} di ${pages}${page > 1 ? html` · ${link(page - 1, 'precedente')}` : ''}${page < pages ? html` · ${link(page + 1, 'successiva')}` : ''}</p></nav>`
      : '';
  return layout(
    `Tariffa ${notes.version}${page > 1 ? ` (pagina ${page})` : ''}`,
    html`<section>${release(notes, LINES_PER_PAGE, 'h1', (page - 1) * LINES_PER_PAGE)}</section>
${nav}<p><a href="/aggiornamenti">Tutti gli aggiornamenti</a></p>`,
    signedIn,
    feedLink,
  );
}

/** The lists of a release as HTML for the feed's entry content. */
export function releaseContentHtml(notes: ReleaseNotes): string {
  return html`<p>${describeNotesItalian(notes)}</p>${lists(notes, LINES_ON_OVERVIEW)}`.value;
}
