import { describe, expect, it } from 'vitest';
import { priceChart } from './price-chart.ts';

const steps = [
  { from: '2023-10-31', cents: 450, href: null },
  { from: '2026-07-22', cents: 480, href: '/aggiornamenti/20260722.1' },
  { from: '2026-12-01', cents: 500, href: '/aggiornamenti/20261201.1' },
];

describe('priceChart', () => {
  const svg = priceChart(steps, '2027-01-01', 'Prezzo di TOSCANO').value;

  it('draws one horizontal run per step, each rising to the next at its date, running on to the last day', () => {
    const path = /class="line" d="([^"]+)"/.exec(svg)![1]!;
    expect(path).toMatch(/^M80 [\d.]+H[\d.]+V[\d.]+H[\d.]+V[\d.]+H616$/);
    const heights = [...path.matchAll(/(?:M80 |V)([\d.]+)/g)].map((m) => Number(m[1]));
    expect(heights[0]! > heights[1]! && heights[1]! > heights[2]!).toBe(true);
  });

  it('marks every step with its date and price, linking those a release carried to its page', () => {
    // Drawn twice, for a wide and a narrow screen, with the same steps.
    expect([...svg.matchAll(/class="step" data-from="([\d-]+)" data-cents="(\d+)"/g)].map((m) => [m[1], Number(m[2])])).toEqual(
      [...steps, ...steps].map((s) => [s.from, s.cents]),
    );
    expect([...svg.matchAll(/<a class="step"[^>]*href="([^"]+)"/g)].map((m) => m[1])).toEqual([
      '/aggiornamenti/20260722.1',
      '/aggiornamenti/20261201.1',
      '/aggiornamenti/20260722.1',
      '/aggiornamenti/20261201.1',
    ]);
    expect(svg).toContain(
      // Amounts with a no-break space before the sign, as the pages write them.
      '<desc id="grafico-wide-2023-10-31-3-d">dal 31 ottobre 2023 4,50\u00a0€; dal 22 luglio 2026 4,80\u00a0€; dal 1 dicembre 2026 5,00\u00a0€</desc>',
    );
  });

  it('draws fewer price lines and year labels for a narrow screen', () => {
    const [wide = '', narrow = ''] = svg.split('</svg>');
    const count = (part: string, pattern: RegExp) => [...part.matchAll(pattern)].length;
    expect(count(narrow, /text-anchor="end"/g)).toBeLessThan(count(wide, /text-anchor="end"/g));
    const long = [{ from: '2015-01-01', cents: 300, href: null }, ...steps];
    const [wideYears, narrowYears] = priceChart(long, '2027-01-01', 'x')
      .value.split('</svg>')
      .map((part) => count(part, /text-anchor="middle"/g));
    // Twelve years: every other one labelled where wide, fewer where narrow.
    expect(wideYears).toBe(6);
    expect(narrowYears).toBeLessThan(wideYears!);
    expect(narrowYears).toBeGreaterThanOrEqual(2);
  });

  it('escapes what it is given and draws nothing without steps', () => {
    expect(priceChart(steps, '2027-01-01', '<script>').value).toContain('&lt;script&gt;');
    expect(priceChart([], '2027-01-01', 'x').value).toBe('');
  });
});
