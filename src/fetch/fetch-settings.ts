import { positiveInteger } from '../config/load-settings.ts';
import type { FetchOptions } from './fetch-source.ts';
import { DEFAULT_RETRY_POLICY } from './retry-policy.ts';

export const DEFAULT_MAX_SOURCE_BYTES = 64 * 1024 * 1024;

/** How downloads from the authority behave, from the environment (docs/operations.md lists the variables). */
export function fetchSettings(
  env: NodeJS.ProcessEnv,
  now: () => Date,
): Omit<FetchOptions, 'dispatcher' | 'onProgress' | 'onRetry'> & { connectTimeoutMs: number } {
  const number = (name: string, fallback: number) => positiveInteger(env[name], name) ?? fallback;
  return {
    connectTimeoutMs: number('TARIFF_FETCH_CONNECT_TIMEOUT_MS', 10_000),
    maxBytes: number('TARIFF_FETCH_MAX_BYTES', DEFAULT_MAX_SOURCE_BYTES),
    headersTimeoutMs: number('TARIFF_FETCH_HEADERS_TIMEOUT_MS', 30_000),
    bodyTimeoutMs: number('TARIFF_FETCH_BODY_TIMEOUT_MS', 60_000),
    deadlineMs: number('TARIFF_FETCH_DEADLINE_SECONDS', 180) * 1000,
    maxRedirects: number('TARIFF_FETCH_MAX_REDIRECTS', 5),
    policy: {
      attempts: number('TARIFF_FETCH_ATTEMPTS', DEFAULT_RETRY_POLICY.attempts),
      baseDelayMs: number('TARIFF_FETCH_RETRY_BASE_MS', DEFAULT_RETRY_POLICY.baseDelayMs),
      maxDelayMs: number('TARIFF_FETCH_RETRY_MAX_MS', DEFAULT_RETRY_POLICY.maxDelayMs),
    },
    sleep: (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)),
    now,
  };
}
