import { describe, expect, it } from 'vitest';
import { compactDate, dateInRome, formatWithOffset, parseCalendarDate } from './dates.ts';

describe('parseCalendarDate', () => {
  it.each([
    ['2026-11-15', '2026-11-15'],
    ['15/11/2026', '2026-11-15'],
    ['1/2/2026', '2026-02-01'],
    [' 2024-02-29 ', '2024-02-29'],
  ])('reads %j', (text, iso) => expect(parseCalendarDate(text)).toBe(iso));

  it.each(['2026-02-29', '31/04/2026', '2026-13-01', '2026-11-5', 'domani', '', '2026/11/15'])('refuses %j', (text) => {
    expect(parseCalendarDate(text)).toBeNull();
  });
});

describe('dateInRome', () => {
  it('is already tomorrow in Italy at 23:30 UTC', () => {
    expect(dateInRome(new Date('2026-11-14T23:30:00Z'))).toBe('2026-11-15');
    expect(dateInRome(new Date('2026-07-14T22:30:00Z'))).toBe('2026-07-15');
    expect(dateInRome(new Date('2026-07-14T21:59:00Z'))).toBe('2026-07-14');
  });
});

describe('formatWithOffset', () => {
  it('writes UTC with +00:00 and Rome with its seasonal offset', () => {
    expect(formatWithOffset(new Date('2026-11-23T00:00:00Z'))).toBe('2026-11-23T00:00:00+00:00');
    expect(formatWithOffset(new Date('2026-11-22T01:40:05Z'), 'Europe/Rome')).toBe('2026-11-22T02:40:05+01:00');
    expect(formatWithOffset(new Date('2026-07-01T10:00:00Z'), 'Europe/Rome')).toBe('2026-07-01T12:00:00+02:00');
  });
});

it('compactDate drops the dashes', () => expect(compactDate('2026-11-15')).toBe('20261115'));
