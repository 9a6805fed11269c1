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
    expect(path).toMatch(/^M72 [\d.]+H[\d.]+V[\d.]+H[\d.]+V[\d.]+H616$/);
    const heights = [...path.matchAll(/(?:M72 |V)([\d.]+)/g)].map((m) => Number(m[1]));
    expect(heights[0]! > heights[1]! && heights[1]! > heights[2]!).toBe(true);
  });

  it('marks every step with its date and price, linking those a release carried to its page', () => {
    expect([...svg.matchAll(/class="step" data-from="([\d-]+)" data-cents="(\d+)"/g)].map((m) => [m[1], Number(m[2])])).toEqual(
      steps.map((s) => [s.from, s.cents]),
    );
    expect([...svg.matchAll(/<a class="step"[^>]*href="([^"]+)"/g)].map((m) => m[1])).toEqual([
      '/aggiornamenti/20260722.1',
      '/aggiornamenti/20261201.1',
    ]);
    expect(svg).toContain(
      '<desc id="grafico-2023-10-31-3-d">dal 31 ottobre 2023 4,50 €; dal 22 luglio 2026 4,80 €; dal 1 dicembre 2026 5,00 €</desc>',
    );
  });

  it('escapes what it is given and draws nothing without steps', () => {
    expect(priceChart(steps, '2027-01-01', '<script>').value).toContain('&lt;script&gt;');
    expect(priceChart([], '2027-01-01', 'x').value).toBe('');
  });
});
