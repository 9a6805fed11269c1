/**
 * One JSON line per request (and per service event) on a stream, buffered and written at most
 * once per event-loop turn: a synchronous write per request would cost more than the request.
 * Never given a key or a token: callers log the account id only.
 */
export class RequestLog {
  private lines: string[] = [];
  private scheduled = false;

  private readonly out: NodeJS.WritableStream | null;

  constructor(out: NodeJS.WritableStream | null) {
    this.out = out;
  }

  write(entry: Record<string, unknown>): void {
    if (!this.out) return;
    this.lines.push(JSON.stringify({ time: new Date().toISOString(), ...entry }));
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
  }

  flush(): void {
    this.scheduled = false;
    if (this.lines.length === 0 || !this.out) return;
    this.out.write(`${this.lines.join('\n')}\n`);
    this.lines = [];
  }
}
