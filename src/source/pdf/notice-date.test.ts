import { describe, expect, it } from 'vitest';
import { effectiveDatesIn } from './notice-date.ts';

describe('effectiveDatesIn', () => {
  it.each([
    ['Si comunica che, con decorrenza dal 1° agosto 2026, i prezzi…', ['2026-08-01']],
    ['a decorrere dal 01/08/2026 i prezzi', ['2026-08-01']],
    ['con decorrenza 15.9.2026', ['2026-09-15']],
    ["A DECORRERE DALL'11 NOVEMBRE 2026", ['2026-11-11']],
    ['con decorrenza dal giorno 3 dicembre 2026 e a decorrere dal 3/12/2026', ['2026-12-03']],
    ['con decorrenza dal 1° agosto 2026 … a decorrere dal 1° settembre 2026', ['2026-08-01', '2026-09-01']],
  ])('reads %j', (text, dates) => {
    expect(effectiveDatesIn(text)).toEqual(dates);
  });

  it.each(['prezzi aggiornati al 22/07/2026', 'con decorrenza dal 31 febbraio 2026', 'decorrenza immediata'])(
    'finds no effective date in %j',
    (text) => {
      expect(effectiveDatesIn(text)).toEqual([]);
    },
  );
});
