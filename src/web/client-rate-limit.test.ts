import { describe, expect, it } from 'vitest';
import { ClientRateLimit } from './client-rate-limit.ts';

describe('ClientRateLimit', () => {
  it('allows each client its pages per minute, and all of them again the next minute', () => {
    let now = new Date('2026-11-25T10:00:10Z');
    const limit = new ClientRateLimit(2, () => now);
    expect([limit.allow('a'), limit.allow('a'), limit.allow('a'), limit.allow('b')]).toEqual([true, true, false, true]);
    expect(limit.retryAfterSeconds()).toBe(50);
    now = new Date('2026-11-25T10:01:00Z');
    expect(limit.allow('a')).toBe(true);
  });
});
