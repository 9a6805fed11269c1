import type { AnnouncedPrice } from '../../dataset/model.ts';
import { DATASET_CATEGORIES, type Category } from '../../source/categories.ts';
import { formatEuroCents } from '../../util/format-euro.ts';
import type { CatalogueEntry, CatalogueIndex, SearchQuery, SearchResult } from './catalogue-index.ts';
import { dataTable, type Row } from '../data-table.ts';
import { html, type SafeHtml } from '../html.ts';
import {
  CATEGORY_LABELS,
  italianCount as count,
  italianDay as day,
  italianEuro as euro,
  NBSP,
  referenceUnitLabel,
} from '../italian-labels.ts';
import { layout } from '../pages.ts';
import { chartSteps, priceChart } from './price-chart.ts';
import type { ReleaseNotes } from '../releases/release-notes.ts';
import { describeNotesItalian } from '../releases/release-notes.ts';
import { MAX_SEARCH_TEXT } from '../../inputs/input-schemas.ts';

const referencePrice = (cents: number | null, unit: string | null) =>
  cents === null || unit === null ? '—' : `${formatEuroCents(cents)} ${referenceUnitLabel(unit)}`.replaceAll(' ', NBSP);

const productLink = (entry: Pick<CatalogueEntry, 'admCode' | 'name'>) => html`<a href="/prodotti/${entry.admCode}">${entry.name}</a>`;

/** The search form: a GET form, so a search is a link and needs no script. */
function searchForm(query: SearchQuery): SafeHtml {
  const option = (category: Category) =>
    html`<option value="${category}"${query.category === category ? html` selected` : ''}>${CATEGORY_LABELS[category]}</option>`;
  return html`<form class="card search" method="get" action="/prodotti" role="search">
<label for="q">Nome, codice AAMS o codice a barre</label>
<div class="line"><input id="q" name="q" type="search" inputmode="search" enterkeyhint="search" value="${query.text}" autocomplete="off" maxlength="${MAX_SEARCH_TEXT}">
<button type="submit">Cerca</button></div>
<p class="row"><label class="inline" for="categoria">Categoria</label>
<select id="categoria" name="categoria"><option value="">Tutte</option>${DATASET_CATEGORIES.map(option)}</select></p>
</form>`;
}

/** A product as a row's header: its name, linked to its page, and its code. */
const productCell = (entry: CatalogueEntry) => html`${productLink(entry)} <span class="muted code">cod.${NBSP}${entry.admCode}</span>`;

function resultRow(entry: CatalogueEntry): Row {
  const { product } = entry;
  return {
    cells: [
      productCell(entry),
      product ? euro(product.pricePerPackCents) : html`<span class="muted">ritirato</span>`,
      entry.pack,
      product ? referencePrice(product.referencePriceCents, product.referenceUnit) : '—',
      CATEGORY_LABELS[entry.category],
    ],
  };
}

const RESULT_COLUMNS = ['Prodotto', { label: 'Prezzo', kind: 'amount' }, 'Confezione', 'Prezzo di riferimento', 'Categoria'] as const;

function searchLink(query: SearchQuery, page: number): string {
  const params = new URLSearchParams();
  if (query.text) params.set('q', query.text);
  if (query.category) params.set('categoria', query.category);
  if (page > 1) params.set('pagina', String(page));
  const text = params.toString();
  return `/prodotti${text ? `?${text}` : ''}`;
}

function resultsSummary(query: SearchQuery, result: SearchResult): SafeHtml | string {
  if (result.matchedBy === 'barcode') return 'Il prodotto con questo codice a barre:';
  if (result.matchedBy === 'code') return 'Il prodotto con questo codice AAMS:';
  if (result.total === 0) {
    if (!query.text) return 'Nessun prodotto in questa categoria.';
    return html`Nessun prodotto trovato per «${query.text}».${suggestions(query, result.suggestions)}`;
  }
  const what = result.total === 1 ? 'prodotto' : 'prodotti';
  if (!query.text) return `${count.format(result.total)} ${what}:`;
  if (result.matchedBy === 'similar')
    return `Nessun nome contiene «${query.text}» così come è scritto: ${count.format(result.total)} ${what} dal nome simile:`;
  return `${count.format(result.total)} ${what} per «${query.text}»:`;
}

/** "Forse cercavi …": the closest names, each a search of its own. */
function suggestions(query: SearchQuery, names: string[]): SafeHtml | '' {
  if (names.length === 0) return '';
  const link = (name: string) => html`<a href="${searchLink({ ...query, text: name }, 1)}">${name}</a>`;
  return html` Forse cercavi: ${names.map((name, i) => html`${i > 0 ? ', ' : ''}${link(name)}`)}?`;
}

/** The public search: the form, then the results of this page, with links to the pages around it. */
export function searchPage(index: CatalogueIndex, query: SearchQuery, result: SearchResult, signedIn: boolean): string {
  const nav =
    result.pages > 1
      ? html`<nav class="pages" aria-label="Pagine dei risultati"><p>Pagina ${query.page} di ${result.pages}${
          query.page > 1 ? html` · <a href="${searchLink(query, query.page - 1)}">precedente</a>` : ''
        }${query.page < result.pages ? html` · <a href="${searchLink(query, query.page + 1)}">successiva</a>` : ''}</p></nav>`
      : '';
  const table =
    result.entries.length === 0
      ? ''
      : dataTable({ className: 'results', columns: [...RESULT_COLUMNS], rows: result.entries.map(resultRow), rowHeader: true });
  return layout(
    query.text ? `Cerca «${query.text}»` : 'Prodotti',
    html`<h1>Prodotti e prezzi</h1>
<p>I ${count.format(index.listed)} prodotti della tariffa${index.tariffDate ? ` in vigore dal ${day(index.tariffDate)}` : ''}${
      index.size > index.listed ? ` e ${count.format(index.size - index.listed)} ritirati` : ''
    }, con il prezzo di vendita al pubblico. Cerca per parole del nome (in qualsiasi ordine, anche solo l'inizio, anche con un errore di battitura), per codice AAMS o per codice a barre.</p>
${searchForm(query)}
<section aria-live="polite"><h2>Risultati</h2><p>${resultsSummary(query, result)}</p>${table}${nav}</section>`,
    signedIn,
  );
}

const BARCODE_KINDS = { pack: 'confezione', carton: 'stecca' } as const;

function facts(entry: CatalogueEntry): SafeHtml {
  const { product } = entry;
  const rows: [string, string | SafeHtml][] = [
    ['Codice AAMS', String(entry.admCode)],
    ['Categoria', CATEGORY_LABELS[entry.category]],
    ['Confezione', entry.pack],
  ];
  if (product) {
    rows.push(
      ['Prezzo di vendita al pubblico', html`<strong class="price">${euro(product.pricePerPackCents)}</strong>`],
      ['Prezzo di riferimento', referencePrice(product.referencePriceCents, product.referenceUnit)],
      ['In vigore dal', day(product.effectiveFrom)],
    );
  }
  return html`<dl class="facts">${rows.map(([term, value]) => html`<dt>${term}</dt><dd>${value}</dd>`)}</dl>`;
}

function withdrawnNotice(entry: CatalogueEntry): SafeHtml | '' {
  if (entry.product) return '';
  const withdrawn = entry.history?.withdrawn;
  const since = withdrawn?.from ? ` dal ${day(withdrawn.from)}` : '';
  const last = entry.history?.steps.at(-1);
  return html`<p class="warning">Questo prodotto non è più nella tariffa${since}.${
    last ? ` Ultimo prezzo: ${euro(last.pricePerPackCents)}, visto il ${day(last.lastSeen)}.` : ''
  }</p>`;
}

function announcedNotice(rows: AnnouncedPrice[]): SafeHtml | '' {
  if (rows.length === 0) return '';
  return html`<div class="notice"><h2>Variazione annunciata</h2><ul>${rows.map(
    (row) =>
      html`<li>Dal <strong>${day(row.effectiveFrom)}</strong>: ${euro(row.pricePerPackCents)} (${referencePrice(row.referencePriceCents, row.referenceUnit)})</li>`,
  )}</ul></div>`;
}

function barcodesTable(entry: CatalogueEntry): SafeHtml {
  if (entry.barcodes.length === 0) return html`<p class="muted">Nessun codice a barre approvato per questo prodotto.</p>`;
  return dataTable({
    className: 'barcodes',
    columns: ['Codice a barre', 'Tipo', { label: 'Confezioni', kind: 'amount' }],
    rows: entry.barcodes.map((b) => ({ cells: [html`<code>${b.barcode}</code>`, BARCODE_KINDS[b.kind], b.units] })),
  });
}

function historySection(entry: CatalogueEntry, until: string, unavailable: boolean): SafeHtml {
  const steps = entry.history?.steps ?? [];
  if (steps.length === 0 && unavailable)
    return html`<p class="warning">Storico dei prezzi non disponibile ora: riprova più tardi. Il prezzo in vigore è quello indicato sopra.</p>`;
  if (steps.length === 0) return html`<p class="muted">Nessuno storico dei prezzi per questo prodotto.</p>`;
  const source = (step: (typeof steps)[number]) =>
    step.release ? html`<a href="/aggiornamenti/${step.release}">rilascio ${step.release}</a>` : html`listino ${step.source}`;
  return html`${priceChart(chartSteps(steps), until, `Prezzo di ${entry.name} (${entry.pack}) nel tempo`)}
${dataTable({
  className: 'history',
  caption: 'Prezzo della confezione nel tempo',
  columns: [
    { label: 'Dal', kind: 'when' },
    { label: 'Prezzo', kind: 'amount' },
    'Prezzo di riferimento',
    { label: 'Visto fino al', kind: 'when' },
    'Fonte',
  ],
  rows: steps.map((step) => ({
    attributes: html` data-from="${step.from}" data-cents="${step.pricePerPackCents}"`,
    cells: [
      day(step.from),
      euro(step.pricePerPackCents),
      referencePrice(step.referencePriceCents, step.referenceUnit),
      day(step.lastSeen),
      source(step),
    ],
  })),
})}`;
}

/**
 * One product: its price now (or that it was withdrawn), an announced change, its approved
 * barcodes, and its price over time as a chart followed by the same data as a table.
 */
export function productPage(entry: CatalogueEntry, until: string, signedIn: boolean, historyUnavailable = false): string {
  return layout(
    `${entry.name} (${entry.pack})`,
    html`<p><a href="/prodotti">Tutti i prodotti</a></p>
<h1>${entry.name}</h1>
${withdrawnNotice(entry)}
${facts(entry)}
${announcedNotice(entry.announced)}
<h2>Prezzo nel tempo</h2>
${historySection(entry, until, historyUnavailable)}
<h2>Codici a barre</h2>
${barcodesTable(entry)}
<p class="muted">Dati dai listini dell'Agenzia delle Dogane e dei Monopoli e dai rilasci di questo servizio; i codici a barre sono segnalati dalle tabaccherie e verificati.</p>`,
    signedIn,
  );
}

/** Announced rows of one day, grouped by category in the dataset's order. */
function announcedDay(index: CatalogueIndex, date: string, rows: AnnouncedPrice[]): SafeHtml {
  const byCategory = new Map<Category, { row: AnnouncedPrice; entry: CatalogueEntry }[]>();
  for (const row of rows) {
    const entry = index.entry(row.admCode);
    if (!entry) continue;
    byCategory.set(entry.category, [...(byCategory.get(entry.category) ?? []), { row, entry }]);
  }
  const line = ({ row, entry }: { row: AnnouncedPrice; entry: CatalogueEntry }): Row => {
    const before = entry.product?.pricePerPackCents ?? null;
    const delta = before === null ? null : row.pricePerPackCents - before;
    return {
      cells: [
        productCell(entry),
        entry.pack,
        before === null ? '—' : euro(before),
        html`<strong>${euro(row.pricePerPackCents)}</strong>`,
        delta === null || delta === 0
          ? '—'
          : html`<span class="${delta > 0 ? 'up' : 'down'}">${delta > 0 ? '+' : '−'}${euro(Math.abs(delta))}</span>`,
      ],
    };
  };
  const columns = [
    'Prodotto',
    'Confezione',
    { label: 'Prezzo attuale', kind: 'amount' },
    { label: 'Nuovo prezzo', kind: 'amount' },
    { label: 'Differenza', kind: 'amount' },
  ] as const;
  return html`<section><h2>Dal ${day(date)}</h2>${DATASET_CATEGORIES.filter((c) => byCategory.has(c)).map(
    (category) =>
      html`<h3>${CATEGORY_LABELS[category]} (${byCategory.get(category)!.length})</h3>${dataTable({
        columns: [...columns],
        rows: byCategory.get(category)!.map(line),
        rowHeader: true,
      })}`,
  )}</section>`;
}

/** The changes the authority has announced for coming days, then what the last releases changed. */
export function announcedPage(index: CatalogueIndex, releases: ReleaseNotes[], signedIn: boolean): string {
  const days = [...new Set(index.announced.map((row) => row.effectiveFrom))];
  return layout(
    'Variazioni di prezzo',
    html`<h1>Variazioni di prezzo</h1>
<p>Le variazioni che l'Agenzia delle Dogane e dei Monopoli ha già annunciato per i prossimi giorni, con il prezzo attuale e quello nuovo, e le modifiche degli ultimi rilasci. Le stesse variazioni annunciate sono nel dataset (tabella <code>announced_prices</code>), così una cassa può cambiare i prezzi a mezzanotte.</p>
${
  days.length === 0
    ? html`<p class="notice">Nessuna variazione annunciata per i prossimi giorni.</p>`
    : days.map((date) =>
        announcedDay(
          index,
          date,
          index.announced.filter((row) => row.effectiveFrom === date),
        ),
      )
}
<h2>Ultimi rilasci</h2>
${
  releases.length === 0
    ? html`<p class="muted">Nessun rilascio pubblicato finora.</p>`
    : html`<ul class="changes">${releases.map(
        (notes) =>
          html`<li><a href="/aggiornamenti/${notes.version}">Tariffa in vigore dal ${day(notes.tariffDate)}</a> <span class="muted">(versione ${notes.version})</span>: ${describeNotesItalian(notes)}</li>`,
      )}</ul>`
}`,
    signedIn,
  );
}
