import { DEFAULT_SETTINGS } from '../config/settings.ts';

export const DEFAULT_STALE_AFTER_MS = DEFAULT_SETTINGS.staleAfterSeconds * 1000;

/** /healthz warns this long before the served manifest's signature expires (a release run re-signs it well before). */
const EXPIRY_WARNING_MS = 86_400_000;

/** What /healthz reports. */
export interface ReleaseHealth {
  /** stale: the bucket could not be read, or its current release not served, for longer than allowed. */
  status: 'ok' | 'stale';
  release: string | null;
  /** The last time the bucket was read and what it names as current is what is served. */
  lastRefreshAt: string | null;
  /** Since when refreshing has failed (null while it works). */
  failingSince: string | null;
  problem: string | null;
  /** Serving an older kept release because the current one does not verify. */
  fallback: boolean;
  /** When the served manifest's signature expires (null: unsigned). */
  expires: string | null;
  /** What an operator should know that is not (yet) a failure: a signature that expires within a day. */
  warning: string | null;
}

/** What the service knows of its following of the bucket, for the health rule. */
export interface RefreshState {
  now: Date;
  staleAfterMs: number;
  /** The last good refresh, or null before the first (staleness then counts from `createdAt`). */
  lastRefreshAt: Date | null;
  createdAt: Date;
  failingSince: Date | null;
  problem: string | null;
  fallback: boolean;
  served: { version: string; expires: string | null } | null;
}

/**
 * The health rule: stale when the last good refresh is older than allowed (counted from it, not
 * from a failure: a read that hangs until its deadline fails late, and is stale all the same), or
 * when the served manifest's signature has expired (every client that checks signatures refuses it).
 */
export function releaseHealth(state: RefreshState): ReleaseHealth {
  const now = state.now.getTime();
  const stale = now - (state.lastRefreshAt ?? state.createdAt).getTime() > state.staleAfterMs;
  const expires = state.served?.expires ?? null;
  const left = expires === null ? Infinity : Date.parse(expires) - now;
  const expired = left <= 0 ? `the current manifest expired on ${expires}: run tariff release (it signs it again)` : null;
  return {
    status: stale || expired ? 'stale' : 'ok',
    release: state.served?.version ?? null,
    lastRefreshAt: state.lastRefreshAt?.toISOString() ?? null,
    failingSince: state.failingSince?.toISOString() ?? null,
    problem: state.problem ?? expired,
    fallback: state.fallback,
    expires,
    warning:
      !expired && left < EXPIRY_WARNING_MS
        ? `the current manifest expires on ${expires}, within a day: run tariff release (it signs it again)`
        : null,
  };
}
