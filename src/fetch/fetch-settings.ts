import type { Settings } from '../config/settings.ts';
import type { FetchOptions } from './fetch-source.ts';

/** How downloads from the authority behave, from the settings (docs/operations.md lists them). */
export function fetchSettings(
  settings: Settings,
  now: () => Date,
): Omit<FetchOptions, 'dispatcher' | 'onProgress' | 'onRetry'> & { connectTimeoutMs: number } {
  return {
    connectTimeoutMs: settings.fetchConnectTimeoutMs,
    maxBytes: settings.fetchMaxBytes,
    headersTimeoutMs: settings.fetchHeadersTimeoutMs,
    bodyTimeoutMs: settings.fetchBodyTimeoutMs,
    deadlineMs: settings.fetchDeadlineSeconds * 1000,
    maxRedirects: settings.fetchMaxRedirects,
    // Redirects lead only to the hosts the operator configured: the pages', the single documents', and TARIFF_SOURCE_HOSTS.
    allowedHosts: new Set(
      [...settings.sourcePages, ...settings.sourceUrls]
        .map((url) => new URL(url).host.toLowerCase())
        .concat(settings.sourceHosts.map((h) => h.toLowerCase())),
    ),
    policy: { attempts: settings.fetchAttempts, baseDelayMs: settings.fetchRetryBaseMs, maxDelayMs: settings.fetchRetryMaxMs },
    sleep: (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)),
    now,
  };
}
