import type { PriceStep } from '../../history/price-history.ts';
import { html, type SafeHtml } from '../html.ts';
import { italianDay as dateLabel, italianEuro as euro } from '../italian-labels.ts';

/** The chart's size in SVG units: it scales to the page's width (viewBox). */
const WIDTH = 640;
const HEIGHT = 240;
const MARGIN = { top: 16, right: 24, bottom: 36, left: 72 };

const DAY_MS = 86_400_000;
const dayNumber = (iso: string) => Date.parse(`${iso}T00:00:00Z`) / DAY_MS;

/** One step of the chart: the price from a day, and the release page that carried it (none for an archived list). */
export interface ChartStep {
  from: string;
  cents: number;
  href: string | null;
}

export const chartSteps = (steps: PriceStep[]): ChartStep[] =>
  steps.map((step) => ({ from: step.from, cents: step.pricePerPackCents, href: step.release ? `/aggiornamenti/${step.release}` : null }));

/** Round values for the price axis: 1, 2 or 5 times a power of ten, about four of them. */
function priceTicks(low: number, high: number): number[] {
  const span = Math.max(high - low, 1);
  const raw = span / 4;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * power).find((candidate) => candidate >= raw)!;
  const ticks: number[] = [];
  for (let value = Math.floor(low / step) * step; value <= high + step / 2; value += step) ticks.push(value);
  return ticks;
}

/**
 * A product's pack price over time as a step line, drawn on the server (no script): each step a
 * point dated and, where a release carried it, linked to that release's page; the line runs on to
 * `until` (the day the page speaks for). A group (not an image: its points are links) named by
 * its title and described by its summary; the table after it on the page holds the same data.
 */
export function priceChart(steps: ChartStep[], until: string, title: string): SafeHtml {
  if (steps.length === 0) return html``;
  const first = dayNumber(steps[0]!.from);
  const last = Math.max(dayNumber(until), dayNumber(steps.at(-1)!.from) + 1);
  const prices = steps.map((s) => s.cents);
  const ticks = priceTicks(Math.min(...prices) * 0.9, Math.max(...prices) * 1.05);
  const [low, high] = [ticks[0]!, ticks.at(-1)!];
  const plotWidth = WIDTH - MARGIN.left - MARGIN.right;
  const plotHeight = HEIGHT - MARGIN.top - MARGIN.bottom;
  const x = (iso: string) => MARGIN.left + ((dayNumber(iso) - first) / (last - first)) * plotWidth;
  const xEnd = MARGIN.left + plotWidth;
  const y = (cents: number) => MARGIN.top + plotHeight - ((cents - low) / Math.max(high - low, 1)) * plotHeight;
  const r = (n: number) => Math.round(n * 10) / 10;

  let path = '';
  steps.forEach((step, i) => {
    const left = r(x(step.from));
    const right = r(i + 1 < steps.length ? x(steps[i + 1]!.from) : xEnd);
    path += `${i === 0 ? 'M' : 'V'}${i === 0 ? `${left} ` : ''}${r(y(step.cents))}H${right}`;
  });
  const years = [];
  for (let year = Number(steps[0]!.from.slice(0, 4)) + 1; dayNumber(`${year}-01-01`) <= last; year++) years.push(year);
  const id = `grafico-${steps[0]!.from}-${steps.length}`;
  const summary = steps.map((s) => `dal ${dateLabel(s.from)} ${euro(s.cents)}`).join('; ');

  const point = (step: ChartStep) => {
    const label = `Dal ${dateLabel(step.from)}: ${euro(step.cents)}${step.href ? ' (vai al rilascio)' : ''}`;
    const dot = html`<circle cx="${r(x(step.from))}" cy="${r(y(step.cents))}" r="5"><title>${label}</title></circle>`;
    const attributes = html`class="step" data-from="${step.from}" data-cents="${step.cents}"`;
    return step.href ? html`<a ${attributes} href="${step.href}" aria-label="${label}">${dot}</a>` : html`<g ${attributes}>${dot}</g>`;
  };

  return html`<figure class="chart">
<svg viewBox="0 0 ${WIDTH} ${HEIGHT}" role="group" aria-labelledby="${id}-t ${id}-d" xmlns="http://www.w3.org/2000/svg">
<title id="${id}-t">${title}</title>
<desc id="${id}-d">${summary}</desc>
<g class="axis">${ticks.map(
    (tick) =>
      html`<line x1="${MARGIN.left}" x2="${xEnd}" y1="${r(y(tick))}" y2="${r(y(tick))}"></line><text x="${MARGIN.left - 8}" y="${r(y(tick)) + 4}" text-anchor="end">${euro(tick)}</text>`,
  )}${years.map(
    (year) =>
      html`<line x1="${r(x(`${year}-01-01`))}" x2="${r(x(`${year}-01-01`))}" y1="${MARGIN.top}" y2="${MARGIN.top + plotHeight}"></line><text x="${r(x(`${year}-01-01`))}" y="${HEIGHT - 12}" text-anchor="middle">${year}</text>`,
  )}</g>
<path class="line" d="${path}"></path>
${steps.map(point)}
</svg>
</figure>`;
}
