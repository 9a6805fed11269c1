import { describe, expect, it } from 'vitest';
import { matchesEtag } from './app.ts';
import { dayWindow, hourWindow, rateLimitHeaders, secondsUntil } from './quota-window.ts';

describe('quota windows', () => {
  const now = new Date('2026-11-22T23:59:30.250Z');

  it('reads reset at 00:00 UTC, submissions at the start of each UTC hour', () => {
    expect(dayWindow(now)).toEqual({ periodStart: '2026-11-22T00:00:00.000Z', resetsAt: new Date('2026-11-23T00:00:00Z') });
    expect(hourWindow(now)).toEqual({ periodStart: '2026-11-22T23:00:00.000Z', resetsAt: new Date('2026-11-23T00:00:00Z') });
    expect(hourWindow(new Date('2026-11-22T10:00:00Z')).periodStart).toBe('2026-11-22T10:00:00.000Z');
  });

  it('waits whole seconds, at least one', () => {
    expect(secondsUntil(new Date('2026-11-23T00:00:00Z'), now)).toBe(30);
    expect(secondsUntil(new Date('2026-11-23T00:00:00Z'), new Date('2026-11-23T00:00:00Z'))).toBe(1);
  });

  it('writes the X-RateLimit headers', () => {
    expect(rateLimitHeaders(10, 3, new Date('2026-11-23T00:00:00Z'))).toEqual({
      'x-ratelimit-limit': '10',
      'x-ratelimit-remaining': '7',
      'x-ratelimit-reset': '1795392000',
    });
    expect(rateLimitHeaders(10, 12, new Date(0))['x-ratelimit-remaining']).toBe('0');
  });
});

describe('matchesEtag', () => {
  it('matches the ETag alone, in a list, weak, or *', () => {
    expect(matchesEtag('"abc"', '"abc"')).toBe(true);
    expect(matchesEtag('"x", "abc"', '"abc"')).toBe(true);
    expect(matchesEtag('W/"abc"', '"abc"')).toBe(true);
    expect(matchesEtag('*', '"abc"')).toBe(true);
    expect(matchesEtag('abc', '"abc"')).toBe(false);
    expect(matchesEtag(undefined, '"abc"')).toBe(false);
  });
});
