import type { Settings } from '../config/settings.ts';

/** Addresses that mean "every interface": a container's or a load balancer's back end. */
const WILDCARDS = new Set(['0.0.0.0', '::', '[::]']);

/**
 * What a service listening on every address (a container, behind a load balancer) says at start
 * when it does not know its public address: without TARIFF_BASE_URL the manifest's file URLs, and
 * without TARIFF_SITE_URL the links of the sign-in e-mails, name the address it listens on, which
 * no client outside reaches. Null when there is nothing to say.
 */
export function publicAddressWarning(settings: Pick<Settings, 'host' | 'port' | 'baseUrl' | 'siteUrl'>): string | null {
  if (!WILDCARDS.has(settings.host)) return null;
  const missing = [
    ...(settings.baseUrl ? [] : ['TARIFF_BASE_URL (the manifest’s file URLs)']),
    ...(settings.siteUrl ? [] : ['TARIFF_SITE_URL (the links in sign-in e-mails)']),
  ];
  if (missing.length === 0) return null;
  return `listening on every address (${settings.host}:${settings.port}) without ${missing.join(' or ')}: they name this process's own address, which clients outside do not reach; set them to the public address (docs/deployment.md)`;
}
