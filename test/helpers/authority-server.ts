import { createHash } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ListBehaviour {
  body: string | Buffer;
  /** Send ETag and Last-Modified and answer conditional requests with 304. */
  validators?: boolean;
  /** Answer the next N requests with this status (500, 503, 429 …) before serving. */
  failures?: number;
  failureStatus?: number;
  retryAfter?: string;
  /** For the next N requests, send half the body and then stall. */
  stalls?: number;
  /** For the next N requests, announce the whole length, send half, and close. */
  truncations?: number;
  status?: number;
  /** Content-Type to send (default application/xml). */
  contentType?: string;
  /** Answer 302 with this Location instead. */
  redirect?: string;
  /** Send the body one byte every this many milliseconds (a trickling server). */
  trickleMs?: number;
  /** A document the authority changes: once `after` requests were answered with `body`, it answers with this one. */
  changed?: { after: number; body: string | Buffer };
}

/**
 * A stand-in for the authority's web server on 127.0.0.1: serves lists with ETag and
 * Last-Modified, and misbehaves on demand (errors, Retry-After, stalled and truncated bodies).
 * Records every request it sees.
 */
export class AuthorityServer {
  readonly lists = new Map<string, ListBehaviour>();
  readonly requests: { path: string; headers: IncomingHttpHeaders }[] = [];
  private server: Server | null = null;
  private readonly stalled = new Set<import('node:http').ServerResponse>();

  async start(): Promise<this> {
    this.server = createServer((request, response) => {
      const path = decodeURIComponent(request.url ?? '/');
      this.requests.push({ path, headers: request.headers });
      const list = this.lists.get(path);
      if (!list) return void response.writeHead(404).end('not found');
      if (list.status) return void response.writeHead(list.status).end();
      if (list.redirect) return void response.writeHead(302, { location: list.redirect }).end();
      if (list.failures && list.failures > 0) {
        list.failures--;
        return void response
          .writeHead(list.failureStatus ?? 500, list.retryAfter ? { 'retry-after': list.retryAfter } : {})
          .end('unavailable');
      }
      if (list.changed && list.changed.after <= 0) list.body = list.changed.body;
      if (list.changed) list.changed.after -= 1;
      const body = Buffer.from(list.body);
      const etag = `"${createHash('sha256').update(body).digest('hex').slice(0, 16)}"`;
      const lastModified = 'Sun, 01 Nov 2026 06:00:00 GMT';
      const headers: Record<string, string | number> = {
        'content-type': list.contentType ?? 'application/xml',
        'content-length': body.length,
      };
      if (list.validators !== false) {
        Object.assign(headers, { etag, 'last-modified': lastModified });
        if (request.headers['if-none-match'] === etag) return void response.writeHead(304, { etag }).end();
      }
      if (list.stalls && list.stalls > 0) {
        list.stalls--;
        response.writeHead(200, headers);
        response.write(body.subarray(0, body.length >> 1));
        this.stalled.add(response);
        return;
      }
      if (list.trickleMs) {
        response.writeHead(200, headers);
        this.stalled.add(response);
        let sent = 0;
        const timer = setInterval(() => {
          if (sent >= body.length || response.destroyed) return void clearInterval(timer);
          response.write(body.subarray(sent, ++sent));
        }, list.trickleMs);
        response.on('close', () => clearInterval(timer));
        return;
      }
      if (list.truncations && list.truncations > 0) {
        list.truncations--;
        response.writeHead(200, headers);
        response.write(body.subarray(0, body.length >> 1), () => response.socket?.destroy());
        return;
      }
      response.writeHead(200, headers).end(body);
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return this;
  }

  url(path: string): string {
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}${path}`;
  }

  requestsFor(path: string) {
    return this.requests.filter((request) => request.path === path);
  }

  async close(): Promise<void> {
    for (const response of this.stalled) response.socket?.destroy();
    this.server?.closeAllConnections();
    await new Promise((resolve) => this.server?.close(resolve));
  }
}
