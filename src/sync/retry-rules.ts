/**
 * When a client may call again after the service refused or failed (interface spec section 8:
 * never retry in a loop; retry after `Retry-After`, or the next day). Pure: the clock is passed in.
 */
export function retryNotBefore(status: number, retryAfter: string | undefined, now: Date): Date {
  const told = parseRetryAfter(retryAfter, now);
  if (told) return told;
  // Without a Retry-After the spec's other answer is the next day: the next UTC midnight, when the read quota resets.
  const next = new Date(now);
  next.setUTCHours(24, 0, 0, 0);
  return status === 429 || status >= 500 ? next : now;
}

/** The longest wait a service can impose: past it a till would go stale for good on one bad header. */
export const MAX_RETRY_WAIT_SECONDS = 2 * 86_400;

/**
 * `Retry-After` as delay seconds or as an HTTP date, at most MAX_RETRY_WAIT_SECONDS away; null
 * when absent or unreadable.
 */
export function parseRetryAfter(value: string | undefined, now: Date): Date | null {
  if (value === undefined) return null;
  const text = value.trim();
  const latest = now.getTime() + MAX_RETRY_WAIT_SECONDS * 1000;
  // Whole seconds, rounded up: the header has that resolution, and waiting a fraction longer is safe.
  if (/^\d+$/.test(text)) return new Date(Math.min(latest, Math.ceil((now.getTime() + Number(text) * 1000) / 1000) * 1000));
  const date = Date.parse(text);
  return Number.isNaN(date) ? null : new Date(Math.min(latest, date));
}

/** Whether the statuses of an answer mean "stop and wait": a refusal for quota or a server error. */
export const mustWait = (status: number): boolean => status === 429 || status >= 500;
