import type { Match } from '../../barcodes/status-rules.ts';
import type { AuditRecord, BarcodeSummary, BarcodeVote, SignUp } from '../../registry/registry.ts';
import { html, type SafeHtml } from '../html.ts';
import { dataTable } from '../data-table.ts';
import { layout, TYPE_NAMES } from '../pages.ts';
import { STATUS_NAMES } from '../account/submissions-page.ts';

const dateTime = new Intl.DateTimeFormat('it-IT', { timeZone: 'Europe/Rome', dateStyle: 'short', timeStyle: 'short' });
const when = (iso: string) => dateTime.format(new Date(iso));
export const matchText = (m: Match | null) => (m ? `${m.admCode} · ${m.kind === 'pack' ? 'pacchetto' : `stecca da ${m.units}`}` : '—');
const matchValue = (m: Match) => `${m.admCode}:${m.kind}:${m.units}`;
const csrfField = (csrf: string) => html`<input type="hidden" name="_csrf" value="${csrf}">`;

export interface DeskView {
  csrf: string;
  notice?: string;
  error?: string;
  signUps: SignUp[];
  barcodes: { summary: BarcodeSummary; votes: BarcodeVote[] }[];
  audit: AuditRecord[];
}

/** Whether a vote counts, and why not, for the administrator (docs/moderation.md). */
function countedText(vote: BarcodeVote): string {
  if (vote.counted) return 'sì';
  if (vote.notCounted === 'not_vetted')
    return `no: account iscritto da sé, non ancora verificato (conta dal ${dateTime.format(new Date(vote.countsFrom!))}, o prima se lo verifica un amministratore)`;
  if (vote.notCounted === 'same_organisation') return `no: stessa organizzazione di ${vote.sameOrganisationAs}, che conta per entrambi`;
  if (vote.notCounted === 'organisation_disagrees') return 'no: account della stessa organizzazione in disaccordo';
  return 'no (bloccato)';
}

function barcodeCard(csrf: string, { summary, votes }: DeskView['barcodes'][number]): SafeHtml {
  const matches = [...new Map(votes.map((v) => [matchValue(v), { admCode: v.admCode, kind: v.kind, units: v.units } as Match])).values()];
  const id = `b${summary.gtin14}`;
  return html`<article class="card" id="${id}" data-barcode="${summary.barcode}">
  <h3><code>${summary.barcode}</code>: ${STATUS_NAMES[summary.status]}</h3>
  ${dataTable({
    caption: html`<span class="muted">Voti (${votes.length})</span>`,
    columns: ['Account', 'Tipo', 'Punto vendita', 'Abbinamento', 'Conta'],
    rows: votes.map((v) => ({ cells: [v.email, TYPE_NAMES[v.accountType], v.contributorRef ?? '—', matchText(v), countedText(v)] })),
  })}
  <form method="post" action="/moderazione/approva">
    ${csrfField(csrf)}
    <input type="hidden" name="barcode" value="${summary.barcode}">
    <fieldset>
      <legend>Approva con l'abbinamento</legend>
      ${matches.map((m, i) => html`<p><input type="radio" id="${id}-m${i}" name="match" value="${matchValue(m)}"${i === 0 ? html` checked` : ''}> <label class="inline" for="${id}-m${i}">${matchText(m)}</label></p>`)}
      <p><input type="radio" id="${id}-other" name="match" value="altro"${matches.length === 0 ? html` checked` : ''}> <label class="inline" for="${id}-other">Un altro:</label>
        <label class="inline" for="${id}-code">codice ADM</label> <input id="${id}-code" name="admCode" type="number" min="1" class="short">
        <label class="inline" for="${id}-kind">tipo</label> <select id="${id}-kind" name="kind"><option value="pack">pacchetto</option><option value="carton">stecca</option></select>
        <label class="inline" for="${id}-units">pezzi</label> <input id="${id}-units" name="units" type="number" min="1" max="1000" value="1" class="short"></p>
    </fieldset>
    <div class="row"><button type="submit">Approva…</button></div>
  </form>
  <form method="post" action="/moderazione/revoca">${csrfField(csrf)}<input type="hidden" name="barcode" value="${summary.barcode}"><button class="danger" type="submit">Revoca…</button></form>
</article>`;
}

/** The administrators' moderation desk: what waits for a decision, the blocking forms, and the audit log. */
export function deskPage(view: DeskView): string {
  const { csrf } = view;
  return layout(
    'Moderazione',
    html`<h1>Moderazione</h1>
${view.notice ? html`<p class="notice" role="status">${view.notice}</p>` : ''}
${view.error ? html`<p class="error" role="alert">${view.error}</p>` : ''}
<h2>Registrazioni in attesa (${view.signUps.length})</h2>
<section id="sign-ups">
  ${
    view.signUps.length === 0
      ? html`<p>Nessuna registrazione in attesa.</p>`
      : dataTable({
          columns: ['E-mail', 'Tipo', 'Organizzazione', { label: 'Richiesta', kind: 'when' }, { label: 'Decisione', kind: 'actions' }],
          rows: view.signUps.map((s) => ({
            attributes: html` data-sign-up="${s.email}"`,
            cells: [
              s.email,
              TYPE_NAMES[s.type],
              s.organisation,
              when(s.createdAt),
              html`<div class="row"><form class="inline" method="post" action="/moderazione/approva-registrazione">${csrfField(csrf)}<input type="hidden" name="id" value="${s.id}"><button type="submit">Approva…</button></form>
      <form class="inline" method="post" action="/moderazione/rifiuta-registrazione">${csrfField(csrf)}<input type="hidden" name="id" value="${s.id}"><button class="secondary" type="submit">Rifiuta…</button></form></div>`,
            ],
          })),
        })
  }
</section>
<h2>Codici a barre da esaminare (${view.barcodes.length})</h2>
<section id="barcodes">
  ${view.barcodes.length === 0 ? html`<p>Nessun codice in conflitto o da confermare.</p>` : view.barcodes.map((b) => barcodeCard(csrf, b))}
</section>
<h2>Blocchi</h2>
<section id="blocks">
  <form method="post" action="/moderazione/account">
    ${csrfField(csrf)}
    <label for="block-email">Account (e-mail)</label>
    <div class="row"><input id="block-email" name="email" type="email" required>
      <button class="danger" type="submit" name="azione" value="blocca">Blocca…</button><button class="secondary" type="submit" name="azione" value="sblocca">Sblocca…</button></div>
  </form>
  <form method="post" action="/moderazione/punto-vendita">
    ${csrfField(csrf)}
    <label for="contributor-email">Punto vendita di un'integrazione: e-mail dell'integrazione</label>
    <p><input id="contributor-email" name="email" type="email" required></p>
    <label for="contributor-ref">Riferimento del punto vendita (contributorRef)</label>
    <div class="row"><input id="contributor-ref" name="contributorRef" type="text" required maxlength="64">
      <button class="danger" type="submit" name="azione" value="blocca">Blocca…</button><button class="secondary" type="submit" name="azione" value="sblocca">Sblocca…</button></div>
  </form>
</section>
<h2>Registro delle decisioni</h2>
<section id="audit">
  ${
    view.audit.length === 0
      ? html`<p>Nessuna decisione registrata.</p>`
      : dataTable({
          columns: [{ label: 'Quando', kind: 'when' }, 'Chi', 'Azione', 'Su'],
          rows: view.audit.map((e) => ({ cells: [when(e.at), e.actor, html`<code>${e.action}</code>`, e.subject] })),
        })
  }
</section>`,
    true,
  );
}

/** "Are you sure?": every decision is confirmed on its own page, which posts the same fields again. */
export function confirmDecisionPage(
  csrf: string,
  action: string,
  question: string,
  fields: Record<string, string>,
  danger: boolean,
): string {
  return layout(
    'Conferma la decisione',
    html`<h1>Conferma la decisione</h1>
<form class="card" method="post" action="/moderazione/${action}">
  ${csrfField(csrf)}
  ${Object.entries(fields).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`)}
  <input type="hidden" name="conferma" value="1">
  <p>${question}</p>
  <p class="muted">La decisione vale subito ed entra nel registro delle decisioni.</p>
  <div class="row"><button class="${danger ? 'danger' : ''}" type="submit">Conferma</button><a href="/moderazione">Annulla</a></div>
</form>`,
    true,
  );
}
