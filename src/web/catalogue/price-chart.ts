import type { PriceStep } from '../../history/price-history.ts';
import { html, type SafeHtml } from '../html.ts';
import { italianDay as dateLabel, italianEuro as euro } from '../italian-labels.ts';

/**
 * A drawing of the chart for a range of widths, in SVG units (it scales to the width it gets,
 * viewBox): text set so that, scaled to the narrowest width the frame is shown at, it is 12 px.
 * Wide from 40rem (a 640 px screen: 593 px of chart at least), narrow below (294 px at 320).
 */
interface Frame {
  name: 'wide' | 'narrow';
  width: number;
  height: number;
  margin: { top: number; right: number; bottom: number; left: number };
  fontSize: number;
  /** Intervals between the price lines, about (one line more than that). */
  priceTicks: number;
  /** Years marked at least this many units apart. */
  yearGap: number;
}

const FRAMES: Frame[] = [
  { name: 'wide', width: 640, height: 240, margin: { top: 16, right: 24, bottom: 36, left: 80 }, fontSize: 13, priceTicks: 4, yearGap: 48 },
  {
    name: 'narrow',
    width: 320,
    height: 220,
    margin: { top: 14, right: 14, bottom: 34, left: 68 },
    fontSize: 13.5,
    priceTicks: 2,
    yearGap: 52,
  },
];

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

/** Round values for the price axis: 1, 2 or 5 times a power of ten, about `count` intervals apart. */
function priceTicks(low: number, high: number, count: number): number[] {
  const span = Math.max(high - low, 1);
  const raw = span / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * power).find((candidate) => candidate >= raw)!;
  const ticks: number[] = [];
  for (let value = Math.floor(low / step) * step; value <= high + step / 2; value += step) ticks.push(value);
  return ticks;
}

/**
 * A product's pack price over time as a step line, drawn on the server (no script): each step a
 * point dated and, where a release carried it, linked to that release's page; the line runs on to
 * `until` (the day the page speaks for). Drawn twice, for a wide and a narrow screen (style.css
 * shows one), so its text keeps its size on a phone. A group (not an image: its points are links)
 * named by its title and described by its summary; the table after it on the page holds the same data.
 */
export function priceChart(steps: ChartStep[], until: string, title: string): SafeHtml {
  if (steps.length === 0) return html``;
  return html`<figure class="chart">${FRAMES.map((frame) => drawChart(frame, steps, until, title))}</figure>`;
}

function drawChart(frame: Frame, steps: ChartStep[], until: string, title: string): SafeHtml {
  const { width: WIDTH, height: HEIGHT, margin: MARGIN } = frame;
  const first = dayNumber(steps[0]!.from);
  const last = Math.max(dayNumber(until), dayNumber(steps.at(-1)!.from) + 1);
  const prices = steps.map((s) => s.cents);
  const ticks = priceTicks(Math.min(...prices) * 0.9, Math.max(...prices) * 1.05, frame.priceTicks);
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
  // Every year gets its line; a label only where it is clear of the one before.
  let lastLabel = -Infinity;
  const labelled = new Set(
    years.filter((year) => {
      const at = x(`${year}-01-01`);
      if (at - lastLabel < frame.yearGap || at > xEnd - frame.fontSize) return false;
      lastLabel = at;
      return true;
    }),
  );
  const id = `grafico-${frame.name}-${steps[0]!.from}-${steps.length}`;
  const summary = steps.map((s) => `dal ${dateLabel(s.from)} ${euro(s.cents)}`).join('; ');

  const point = (step: ChartStep) => {
    const label = `Dal ${dateLabel(step.from)}: ${euro(step.cents)}${step.href ? ' (vai al rilascio)' : ''}`;
    // The dot, and around it a clear circle that makes the point a 24 px target on any screen.
    const [cx, cy] = [r(x(step.from)), r(y(step.cents))];
    const dot = html`<circle class="hit" cx="${cx}" cy="${cy}" r="13"></circle><circle cx="${cx}" cy="${cy}" r="6"><title>${label}</title></circle>`;
    const attributes = html`class="step" data-from="${step.from}" data-cents="${step.cents}"`;
    return step.href ? html`<a ${attributes} href="${step.href}" aria-label="${label}">${dot}</a>` : html`<g ${attributes}>${dot}</g>`;
  };

  return html`<svg class="${frame.name}" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="group" aria-labelledby="${id}-t ${id}-d" font-size="${frame.fontSize}" xmlns="http://www.w3.org/2000/svg">
<title id="${id}-t">${title}</title>
<desc id="${id}-d">${summary}</desc>
<g class="axis">${ticks.map(
    (tick) =>
      html`<line x1="${MARGIN.left}" x2="${xEnd}" y1="${r(y(tick))}" y2="${r(y(tick))}"></line><text x="${MARGIN.left - 8}" y="${r(y(tick)) + 4}" text-anchor="end">${euro(tick)}</text>`,
  )}${years.map(
    (year) =>
      html`<line x1="${r(x(`${year}-01-01`))}" x2="${r(x(`${year}-01-01`))}" y1="${MARGIN.top}" y2="${MARGIN.top + plotHeight}"></line>${
        labelled.has(year) ? html`<text x="${r(x(`${year}-01-01`))}" y="${HEIGHT - 12}" text-anchor="middle">${year}</text>` : ''
      }`,
  )}</g>
<path class="line" d="${path}"></path>
${steps.map(point)}
</svg>`;
}
