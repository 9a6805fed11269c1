import { describe, expect, it } from 'vitest';
import { retryDelay } from './retry-policy.ts';

const policy = { attempts: 4, baseDelayMs: 1000, maxDelayMs: 60_000 };
const now = new Date('2026-11-22T10:00:00Z');

describe('retryDelay', () => {
  it('backs off exponentially and gives up after the last try', () => {
    expect([1, 2, 3].map((attempt) => retryDelay(policy, attempt, undefined, now))).toEqual([1000, 2000, 4000]);
    expect(retryDelay(policy, 4, undefined, now)).toBeNull();
  });

  it('honours Retry-After in seconds or as a date, within the longest wait', () => {
    expect(retryDelay(policy, 1, '7', now)).toBe(7000);
    expect(retryDelay(policy, 1, 'Sun, 22 Nov 2026 10:00:30 GMT', now)).toBe(30_000);
    expect(retryDelay(policy, 1, '3600', now)).toBeNull();
  });

  it('falls back to backoff for an unreadable Retry-After', () => {
    expect(retryDelay(policy, 2, 'soon', now)).toBe(2000);
  });

  it('caps the backoff', () => {
    expect(retryDelay({ attempts: 20, baseDelayMs: 1000, maxDelayMs: 5000 }, 10, undefined, now)).toBe(5000);
  });
});
