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

/** `Retry-After` as delay seconds or as an HTTP date; null when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now: Date): Date | null {
  if (value === undefined) return null;
  const text = value.trim();
  // Whole seconds, rounded up: the header has that resolution, and waiting a fraction longer is safe.
  if (/^\d+$/.test(text)) return new Date(Math.ceil((now.getTime() + Number(text) * 1000) / 1000) * 1000);
  const date = Date.parse(text);
  return Number.isNaN(date) ? null : new Date(date);
}

/** Whether the statuses of an answer mean "stop and wait": a refusal for quota or a server error. */
export const mustWait = (status: number): boolean => status === 429 || status >= 500;
