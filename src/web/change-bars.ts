import { html, type SafeHtml } from './html.ts';

/** One bar pair: how many prices rose and fell in a group (a category). */
export interface BarRow {
  label: string;
  rises: number;
  cuts: number;
}

const ROW_HEIGHT = 28;
const LABEL_WIDTH = 250;
const BAR_WIDTH = 300;
const WIDTH = LABEL_WIDTH + BAR_WIDTH + 60;

/**
 * Rises and cuts per group as horizontal bars (rises above cuts), drawn on the server; the table
 * the page puts after it holds the same counts for screen readers and for copying.
 */
export function changeBars(rows: BarRow[], title: string): SafeHtml {
  if (rows.length === 0) return html``;
  const most = Math.max(1, ...rows.flatMap((row) => [row.rises, row.cuts]));
  const height = rows.length * ROW_HEIGHT * 2 + 8;
  const bar = (value: number, top: number, kind: 'up' | 'down') => {
    const width = Math.max(value > 0 ? 2 : 0, Math.round((value / most) * BAR_WIDTH));
    return html`<rect class="${kind}" x="${LABEL_WIDTH}" y="${top}" width="${width}" height="${ROW_HEIGHT - 8}" data-count="${value}"></rect><text x="${LABEL_WIDTH + width + 6}" y="${top + ROW_HEIGHT / 2}">${value}</text>`;
  };
  return html`<figure class="chart">
<svg viewBox="0 0 ${WIDTH} ${height}" role="img" aria-label="${title}" xmlns="http://www.w3.org/2000/svg">
${rows.map((row, i) => {
  const top = 4 + i * ROW_HEIGHT * 2;
  return html`<g class="bars" data-label="${row.label}"><text x="${LABEL_WIDTH - 8}" y="${top + ROW_HEIGHT}" text-anchor="end">${row.label}</text>${bar(row.rises, top, 'up')}${bar(row.cuts, top + ROW_HEIGHT - 4, 'down')}</g>`;
})}
</svg>
<figcaption class="muted"><span class="key-up">■</span> aumenti · <span class="key-down">■</span> riduzioni</figcaption>
</figure>`;
}
