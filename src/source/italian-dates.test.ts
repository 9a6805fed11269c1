import { describe, expect, it } from 'vitest';
import { effectiveDatesIn, listDateIn } from './italian-dates.ts';

describe('listDateIn', () => {
  it.each([
    ['LISTINO AGGIORNATO AL 22/07/2026', '2026-07-22'],
    ['LISTINO AGGIORNATO AL 10 OTTOBRE 2023', '2023-10-10'],
    ['LISTINO AGGIORNATO AL 03 OTTOBRE 2023', '2023-10-03'],
    ["LISTINO CAMPIONE D'ITALIA AGGIORNATO AL 3/04/2026", '2026-04-03'],
    ['Listino aggiornato al 1° dicembre 2026', '2026-12-01'],
    ['LISTINO AGGIORNATO AL 7.3.2026', '2026-03-07'],
  ])('reads %j', (text, iso) => {
    expect(listDateIn(text)?.iso).toBe(iso);
  });

  it('says a written date that is no real day is invalid, and finds none in other text', () => {
    expect(listDateIn('LISTINO AGGIORNATO AL 31/02/2026')).toEqual({ iso: null, written: 'AGGIORNATO AL 31/02/2026' });
    expect(listDateIn('LISTINO PREZZI SIGARI')).toBeNull();
  });
});

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
