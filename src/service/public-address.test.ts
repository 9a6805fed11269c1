import { describe, expect, it } from 'vitest';
import { publicAddressWarning } from './public-address.ts';

describe('the warning of a service that does not know its public address', () => {
  it('is said when it listens on every address without its public URLs, naming the ones missing', () => {
    const warning = publicAddressWarning({ host: '0.0.0.0', port: 8080, baseUrl: undefined, siteUrl: 'https://tariff.example.it' });
    expect(warning).toContain('TARIFF_BASE_URL');
    expect(warning).not.toContain('TARIFF_SITE_URL');
    expect(publicAddressWarning({ host: '::', port: 8080, baseUrl: undefined, siteUrl: undefined })).toContain('TARIFF_SITE_URL');
  });

  it('is not said on a loopback address, nor once both URLs are set', () => {
    expect(publicAddressWarning({ host: '127.0.0.1', port: 8080, baseUrl: undefined, siteUrl: undefined })).toBeNull();
    const both = { baseUrl: 'https://tariff.example.it/v1', siteUrl: 'https://tariff.example.it' };
    expect(publicAddressWarning({ host: '0.0.0.0', port: 8080, ...both })).toBeNull();
  });
});
