/** A counter's current period: its key in the registry and when the next one starts. */
export interface QuotaWindow {
  periodStart: string;
  resetsAt: Date;
}

let lastDay: QuotaWindow | null = null;

/** Reads: the UTC day. The window is on every request's path, so the current one is reused. */
export function dayWindow(now: Date): QuotaWindow {
  const start = Math.floor(now.getTime() / 86_400_000) * 86_400_000;
  if (lastDay?.resetsAt.getTime() !== start + 86_400_000)
    lastDay = { periodStart: new Date(start).toISOString(), resetsAt: new Date(start + 86_400_000) };
  return lastDay;
}

/** Submissions: the UTC hour. */
export function hourWindow(now: Date): QuotaWindow {
  const start = Math.floor(now.getTime() / 3_600_000) * 3_600_000;
  return { periodStart: new Date(start).toISOString(), resetsAt: new Date(start + 3_600_000) };
}

/** Whole seconds until the reset, at least 1: what Retry-After and retryAfterSeconds say. */
export function secondsUntil(resetsAt: Date, now: Date): number {
  return Math.max(1, Math.ceil((resetsAt.getTime() - now.getTime()) / 1000));
}

/** The X-RateLimit-* headers of a counter. */
export function rateLimitHeaders(limit: number, used: number, resetsAt: Date): Record<string, string> {
  return {
    'x-ratelimit-limit': String(limit),
    'x-ratelimit-remaining': String(Math.max(0, limit - used)),
    'x-ratelimit-reset': String(Math.floor(resetsAt.getTime() / 1000)),
  };
}
