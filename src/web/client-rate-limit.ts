/**
 * Requests per client per minute, counted in this process's memory: the public catalogue answers
 * from memory, and a limit that asked the registry would cost a query per page. Each process (each
 * worker, each instance) counts on its own; the map holds only the current minute's clients.
 */
export class ClientRateLimit {
  private minute = -1;
  private readonly counts = new Map<string, number>();
  private readonly perMinute: number;
  private readonly now: () => Date;

  constructor(perMinute: number, now: () => Date) {
    this.perMinute = perMinute;
    this.now = now;
  }

  /** Counts one request; false once the client has used up this minute. */
  allow(client: string): boolean {
    const minute = Math.floor(this.now().getTime() / 60_000);
    if (minute !== this.minute) {
      this.minute = minute;
      this.counts.clear();
    }
    const used = (this.counts.get(client) ?? 0) + 1;
    this.counts.set(client, used);
    return used <= this.perMinute;
  }

  /** Seconds until the next minute, for Retry-After. */
  retryAfterSeconds(): number {
    return 60 - Math.floor((this.now().getTime() % 60_000) / 1000);
  }
}
