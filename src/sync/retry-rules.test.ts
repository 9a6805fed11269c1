import { describe, expect, it } from 'vitest';
import { mustWait, parseRetryAfter, retryNotBefore } from './retry-rules.ts';

const now = new Date('2026-11-22T15:30:00Z');

describe('retryNotBefore', () => {
  it('waits as long as Retry-After says, in seconds or as a date', () => {
    expect(retryNotBefore(429, '30600', now).toISOString()).toBe('2026-11-23T00:00:00.000Z');
    expect(retryNotBefore(429, '1', new Date('2026-11-22T23:59:58.700Z')).toISOString()).toBe('2026-11-23T00:00:00.000Z');
    expect(retryNotBefore(503, 'Sun, 22 Nov 2026 16:00:00 GMT', now).toISOString()).toBe('2026-11-22T16:00:00.000Z');
  });

  it('never waits more than two days, whatever the header says', () => {
    expect(retryNotBefore(429, '31536000', now).toISOString()).toBe('2026-11-24T15:30:00.000Z');
    expect(retryNotBefore(429, '99999999999999999999', now).toISOString()).toBe('2026-11-24T15:30:00.000Z');
    expect(retryNotBefore(503, 'Fri, 01 Jan 2100 00:00:00 GMT', now).toISOString()).toBe('2026-11-24T15:30:00.000Z');
  });

  it('waits for the next UTC day when the service said nothing', () => {
    expect(retryNotBefore(500, undefined, now).toISOString()).toBe('2026-11-23T00:00:00.000Z');
    expect(retryNotBefore(429, 'soon', now).toISOString()).toBe('2026-11-23T00:00:00.000Z');
  });

  it('knows which answers mean stop', () => {
    expect([200, 304, 401, 404, 429, 500, 503].filter(mustWait)).toEqual([429, 500, 503]);
    expect(parseRetryAfter(undefined, now)).toBeNull();
  });
});
