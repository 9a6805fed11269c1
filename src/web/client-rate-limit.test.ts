import { describe, expect, it } from 'vitest';
import { ClientRateLimit, clientOf } from './client-rate-limit.ts';

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

describe('the client an address stands for', () => {
  it('is an IPv6 address’s /64, and an IPv4 address however written', () => {
    const subscriber = [
      '2001:db8:1:2::1',
      '2001:db8:1:2:aaaa::9',
      '2001:0db8:0001:0002:ffff:ffff:ffff:ffff',
      '2001:db8:1:2::',
      '2001:db8:1:2::1%eth0',
    ];
    expect(new Set(subscriber.map(clientOf))).toEqual(new Set(['2001:db8:1:2::/64']));
    expect(clientOf('2001:db8:1:3::1')).toBe('2001:db8:1:3::/64');
    expect(clientOf('::1')).toBe('0:0:0:0::/64');
    expect(clientOf('::ffff:192.0.2.7')).toBe('192.0.2.7');
    expect(clientOf('192.0.2.7')).toBe('192.0.2.7');
  });

  it('counts five addresses of one /64 as one client', () => {
    const limit = new ClientRateLimit(3, () => new Date('2026-11-25T10:00:00Z'));
    const allowed = ['2001:db8::1', '2001:db8::2', '2001:db8::3', '2001:db8::4', '2001:db8::5'].map((address) =>
      limit.allow(clientOf(address)),
    );
    expect(allowed).toEqual([true, true, true, false, false]);
  });
});
