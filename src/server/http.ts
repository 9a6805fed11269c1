import type { Readable } from 'node:stream';

/**
 * The service's own request and response: a handler is a function from one to the other, so the
 * routes are tested without sockets, and only the Node adapter binds a port. Plain objects rather
 * than the web-standard Request/Response: those cost several times more per request in Node, and
 * the 304 path is measured in microseconds.
 */
export interface HttpRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  /** Lower-case header names. */
  headers: Record<string, string | string[] | undefined>;
  /** The body, read on demand up to the size limit (413 beyond). */
  body: () => Promise<Buffer>;
  remoteAddress: string;
}

export interface HttpResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer | string | Readable | null;
  /** The authenticated account, for the request log. */
  accountId?: number | null;
  /** The route that answered, as the router names it (`/aggiornamenti/:version`): a metric's label of bounded values. */
  route?: string;
}

export type Handler = (request: HttpRequest) => Promise<HttpResponse>;

export function header(request: HttpRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

export function json(status: number, value: unknown, headers: Record<string, string> = {}): HttpResponse {
  return {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', ...headers },
    body: JSON.stringify(value),
  };
}
