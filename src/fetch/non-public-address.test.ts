import { describe, expect, it } from 'vitest';
import { nonPublicAddress } from './fetch-source.ts';

describe('addresses no public document lives at', () => {
  it('names loopback, private, link-local and unique-local addresses, IPv4 and IPv6', () => {
    expect(
      [
        '127.0.0.2',
        '10.1.2.3',
        '172.16.0.1',
        '192.168.1.1',
        '169.254.169.254',
        '[::1]',
        '[fe80::1]',
        '[fd00::1]',
        '[::ffff:127.0.0.1]',
        'localhost',
      ].map(nonPublicAddress),
    ).toEqual([
      'a loopback address',
      'a private address',
      'a private address',
      'a private address',
      'a link-local address',
      'a loopback address',
      'a link-local address',
      'a unique-local address',
      'a loopback address',
      'a loopback address',
    ]);
  });

  it('leaves public addresses and names alone', () => {
    expect(['93.184.216.34', '172.32.0.1', '[2001:db8::1]', 'www.adm.gov.it'].map(nonPublicAddress)).toEqual([null, null, null, null]);
  });
});
