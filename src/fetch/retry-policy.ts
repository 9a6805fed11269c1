export interface RetryPolicy {
  /** Tries in all, the first included. */
  attempts: number;
  /** Wait before the second try; doubled for each further one. */
  baseDelayMs: number;
  /** Longest wait a run accepts, from backoff or Retry-After; past it the run gives up until the next one. */
  maxDelayMs: number;
}

/**
 * How long to wait after failed try number `attempt` (1-based) before the next, or null to give
 * up. A Retry-After header (seconds or an HTTP date) is honoured when it fits in maxDelayMs; a
 * server asking for more is left alone until the next scheduled run rather than hammered.
 */
export function retryDelay(policy: RetryPolicy, attempt: number, retryAfter: string | undefined, now: Date): number | null {
  if (attempt >= policy.attempts) return null;
  if (retryAfter !== undefined) {
    const seconds = /^\d+$/.test(retryAfter.trim()) ? Number(retryAfter) * 1000 : Date.parse(retryAfter) - now.getTime();
    if (Number.isFinite(seconds)) return seconds > policy.maxDelayMs ? null : Math.max(0, seconds);
  }
  return Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
}
