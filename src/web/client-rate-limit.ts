import { isIP } from 'node:net';
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

/**
 * The client an address stands for, as the per-client limits count it: an IPv4 address (also
 * when written IPv4-mapped, ::ffff:a.b.c.d), or an IPv6 address's /64, which one subscriber
 * holds whole (five addresses of one /64 are one client).
 */
export function clientOf(address: string): string {
  const plain = address.replace(/%.*$/, '');
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(plain);
  if (mapped) return mapped[1]!;
  if (isIP(plain) !== 6) return plain;
  const [head = '', tail = ''] = plain.split('::');
  const left = head ? head.split(':') : [];
  const right = plain.includes('::') ? (tail ? tail.split(':') : []) : [];
  const groups = [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return `${groups
    .slice(0, 4)
    .map((group) => parseInt(group, 16).toString(16))
    .join(':')}::/64`;
}
