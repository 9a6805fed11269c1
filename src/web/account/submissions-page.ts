import type { RecordStatus } from '../../barcodes/status-rules.ts';
import type { SubmissionRecord } from '../../registry/registry.ts';
import { dataTable } from '../data-table.ts';
import { html } from '../html.ts';
import { layout } from '../pages.ts';

export const SUBMISSIONS_PER_PAGE = 50;

export const STATUS_NAMES: Record<RecordStatus, string> = {
  to_confirm: 'da confermare',
  approved: 'approvato',
  conflict: 'in conflitto',
  revoked: 'revocato',
  outvoted: 'superato (approvato con un altro abbinamento)',
};

const dateTime = new Intl.DateTimeFormat('it-IT', { timeZone: 'Europe/Rome', dateStyle: 'short', timeStyle: 'short' });

/** "Le mie segnalazioni": the account's own submissions, most recent first, a page at a time; reading them here spends no read. */
export function submissionsPage(records: SubmissionRecord[], page: number, hasNext: boolean): string {
  const link = (to: number, label: string) => html`<a href="/account/segnalazioni${to > 1 ? `?pagina=${to}` : ''}">${label}</a>`;
  return layout(
    'Le mie segnalazioni',
    html`<h1>Le mie segnalazioni</h1>
<p class="muted">I codici a barre che hai segnalato (uno per codice: l'ultima segnalazione sostituisce le precedenti), dal più recente, con lo stato di oggi. Consultarli qui non consuma letture.</p>
<section>
${
  records.length === 0
    ? html`<p>${page === 1 ? 'Nessuna segnalazione finora.' : 'Nessuna segnalazione in questa pagina.'}</p>`
    : dataTable({
        id: 'submissions',
        caption: html`<span class="muted">Pagina ${page}</span>`,
        columns: ['Codice a barre', 'Codice ADM', 'Confezione', 'Punto vendita', { label: 'Segnalato', kind: 'when' }, 'Stato'],
        rows: records.map((r) => ({
          attributes: html` data-barcode="${r.barcode}"`,
          cells: [
            html`<code>${r.barcode}</code>`,
            r.admCode,
            r.kind === 'pack' ? 'pacchetto' : `stecca da ${r.units}`,
            r.contributorRef ?? '—',
            dateTime.format(new Date(r.submittedAt)),
            html`<span data-status="${r.status}">${STATUS_NAMES[r.status]}</span>`,
          ],
        })),
      })
}
<nav class="row" aria-label="Pagine">${page > 1 ? link(page - 1, '← Più recenti') : ''}${hasNext ? link(page + 1, 'Meno recenti →') : ''}</nav>
</section>
<p><a href="/account">Torna all'account</a></p>`,
    true,
  );
}
