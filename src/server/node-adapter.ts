import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { DEFAULT_SETTINGS, type Settings } from '../config/settings.ts';
import { errors } from '../errors.ts';
import type { Handler, HttpRequest, HttpResponse } from './http.ts';
import { machineFault } from '../util/machine-fault.ts';
import { httpErrors } from './http-errors.ts';
import type { RequestLog } from './request-log.ts';
import { UNMATCHED_ROUTE } from './router.ts';

export const MAX_BODY_BYTES = 1024 * 1024;

class BodyTooLargeError extends Error {}
/** The client went away in the middle of its request body: its problem, not a server error. */
class ClientAbortedError extends Error {}

/** How long a client may take, and how many may be connected at once (docs/operations.md). */
export interface ServerLimits {
  /** Time to send the request headers: a client that trickles them is cut off. */
  headersTimeoutMs: number;
  /** Time to send the whole request, body included. */
  requestTimeoutMs: number;
  /** A connection with no traffic either way for this long is closed (a reader that stopped reading). */
  idleTimeoutMs: number;
  /** Time an idle keep-alive connection is kept for the next request. */
  keepAliveTimeoutMs: number;
  /** Connections at once; more are refused at once rather than queued. */
  maxConnections: number;
  /**
   * On SIGTERM the requests under way get this long to finish; then their connections are cut,
   * so a download to a stalled reader cannot hold a stopping service (or a deploy) for ever.
   */
  shutdownGraceMs: number;
}

/** The limits the settings give (TARIFF_HEADERS_TIMEOUT_MS …), at their defaults unless set. */
export const serverLimits = (settings: Settings): ServerLimits => ({
  headersTimeoutMs: settings.headersTimeoutMs,
  requestTimeoutMs: settings.requestTimeoutMs,
  idleTimeoutMs: settings.idleTimeoutMs,
  keepAliveTimeoutMs: settings.keepAliveTimeoutMs,
  maxConnections: settings.maxConnections,
  shutdownGraceMs: settings.shutdownGraceMs,
});

export interface ListeningServer {
  server: Server;
  /** The address bound, as bound (`http://0.0.0.0:8080` for every interface). */
  url: string;
  /** An address a client on this machine can use: a wildcard bind names the loopback address of its family. */
  reachableUrl: string;
  close(): Promise<void>;
}

/** What a listener tells of each request answered (the service's metrics). */
export type RequestObserver = (route: string, method: string, status: number, durationSeconds: number) => void;

/** How long a stopping server goes on reading the connections it has before closing the idle ones. */
const READ_PENDING_MS = 50;

/** Binds a handler to a port with node:http: reads bodies with a limit, writes responses, logs each request. */
export async function listen(
  handler: Handler,
  options: {
    host: string;
    port: number;
    log: RequestLog;
    limits?: ServerLimits;
    observe?: RequestObserver;
    /** Told of each request answered 503 for a fault of the machine or a service (for /metrics). */
    unavailable?: (condition: string) => void;
    /** Log a failure's stack too (TARIFF_DEBUG=1): never in an answer. */
    debug?: boolean;
  },
): Promise<ListeningServer> {
  const limits = options.limits ?? serverLimits(DEFAULT_SETTINGS);
  let stopping = false;
  const server = createServer(
    {
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      // How often Node looks for connections past those timeouts (its default is 30 s).
      connectionsCheckingInterval: Math.max(100, Math.min(1_000, Math.floor(limits.headersTimeoutMs / 2))),
    },
    (incoming, outgoing) => {
      // A stopping service answers, then closes the connection: the client opens its next one elsewhere.
      if (stopping) outgoing.setHeader('connection', 'close');
      void serve(handler, incoming, outgoing, options);
    },
  );
  server.maxConnections = limits.maxConnections;
  server.timeout = limits.idleTimeoutMs;
  server.on('drop', () => options.log.write({ event: 'connection.refused', reason: 'maxConnections', max: limits.maxConnections }));
  // `Expect: 100-continue` is answered by Node; any other expectation gets a JSON 417, as every error.
  server.on('checkExpectation', (incoming: IncomingMessage, outgoing: ServerResponse) => {
    const body = JSON.stringify({
      error: 'expectation_failed',
      message: `Aspettativa non supportata: ${String(incoming.headers.expect).slice(0, 100)}.`,
    });
    outgoing
      .writeHead(417, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body), connection: 'close' })
      .end(body);
    options.log.write({ method: incoming.method, path: (incoming.url ?? '/').split('?')[0], status: 417 });
  });
  // Requests node:http cannot parse, or too slow to arrive, still get a JSON error body, as every error does.
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    if (!socket.writable) return socket.destroy();
    const answer = clientErrorAnswer(error.code);
    const body = JSON.stringify({ error: answer.error, message: answer.message });
    socket.end(
      `HTTP/1.1 ${answer.status}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
    );
    // Closed both ways once the answer is out: a half-closed socket whose client goes on sending would keep its slot.
    (socket as Socket).destroySoon();
    options.log.write({ event: 'request.malformed', code: error.code ?? 'unknown' });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      const reason = error.code === 'EADDRINUSE' ? 'address in use' : error.code === 'EACCES' ? 'permission denied' : error.message;
      reject(errors.listenFailed(`${options.host}:${options.port}`, reason));
    });
    server.listen(options.port, options.host, resolve);
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const reachable = address.address === '0.0.0.0' ? '127.0.0.1' : address.address === '::' ? '[::1]' : host;
  return {
    server,
    url: `http://${host}:${address.port}`,
    reachableUrl: `http://${reachable}:${address.port}`,
    close: () =>
      new Promise((resolve) => {
        stopping = true;
        // A request sent on an idle keep-alive connection just before the stop may still wait unread
        // in the kernel: closing that connection now would reset it. A short pause reads it first
        // (it is answered, with Connection: close); then what is still idle is closed.
        setTimeout(() => {
          const cut = setTimeout(() => server.closeAllConnections(), limits.shutdownGraceMs).unref();
          server.close(() => {
            clearTimeout(cut);
            resolve();
          });
          server.closeIdleConnections();
        }, READ_PENDING_MS);
      }),
  };
}

/** The answer to a request node:http gave up on: too slow, headers too large, or not HTTP. */
function clientErrorAnswer(code: string | undefined): { status: string; error: string; message: string } {
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT')
    return { status: '408 Request Timeout', error: 'request_timeout', message: 'Richiesta arrivata troppo lentamente.' };
  if (code === 'HPE_HEADER_OVERFLOW')
    return {
      status: '431 Request Header Fields Too Large',
      error: 'headers_too_large',
      message: 'Intestazioni della richiesta troppo grandi.',
    };
  return { status: '400 Bad Request', error: 'bad_request', message: 'Richiesta HTTP non valida.' };
}

async function serve(
  handler: Handler,
  incoming: IncomingMessage,
  outgoing: ServerResponse,
  {
    log,
    observe,
    unavailable,
    debug,
  }: { log: RequestLog; observe?: RequestObserver; unavailable?: (condition: string) => void; debug?: boolean },
): Promise<void> {
  const started = performance.now();
  const rawUrl = incoming.url ?? '/';
  const queryAt = rawUrl.indexOf('?');
  const path = queryAt === -1 ? rawUrl : rawUrl.slice(0, queryAt);
  let query: URLSearchParams | undefined;
  const request: HttpRequest = {
    method: incoming.method ?? 'GET',
    path,
    get query() {
      return (query ??= new URLSearchParams(queryAt === -1 ? '' : rawUrl.slice(queryAt + 1)));
    },
    headers: incoming.headers,
    body: () => readBody(incoming),
    remoteAddress: incoming.socket.remoteAddress ?? '',
  };
  let response: HttpResponse;
  try {
    // An announced body over the limit is refused before any work, whatever the route.
    if (Number(incoming.headers['content-length'] ?? 0) > MAX_BODY_BYTES) throw new BodyTooLargeError();
    response = await handler(request);
  } catch (error) {
    if (error instanceof BodyTooLargeError) response = httpErrors.payloadTooLarge(MAX_BODY_BYTES);
    else if (error instanceof ClientAbortedError) {
      log.write({ event: 'request.aborted', method: request.method, path, detail: error.message });
      response = httpErrors.requestAborted();
    } else {
      const fault = machineFault(error);
      if (fault) {
        // A full disk, a database down: the operator's to fix, the client's to retry. One line, no stack.
        log.write({ event: 'request.unavailable', method: request.method, path, condition: fault.condition, detail: fault.detail });
        unavailable?.(fault.condition);
        response = httpErrors.serviceUnavailable();
      } else {
        log.write({ event: 'request.error', method: request.method, path, error: (error as Error).message ?? String(error) });
        if (debug) log.write({ event: 'debug.stack', path, stack: (error as Error).stack ?? String(error) });
        response = httpErrors.internalError();
      }
    }
  }
  // A body left unread by an error answer (413, a 401 before the body is looked at) is not kept:
  // the connection closes after the answer, so an endless body costs at most LINGER_MS. A small
  // unread body of a successful answer is drained so the connection can be reused.
  const abandon = !incoming.complete && response.status >= 400;
  if (abandon) {
    response.headers = { ...response.headers, connection: 'close' };
    // Node ends a `connection: close` answer with the socket's destroySoon(), which resets a
    // connection the client is still sending on: this one lingers instead.
    (incoming.socket as Socket).destroySoon = () => lingeringClose(incoming);
  } else if (!incoming.complete) incoming.resume();

  const { body } = response;
  if ((typeof body === 'string' || Buffer.isBuffer(body)) && response.headers['content-length'] === undefined) {
    response.headers = { 'content-length': String(Buffer.byteLength(body)), ...response.headers };
  }
  outgoing.writeHead(response.status, response.headers);
  if (body === null || request.method === 'HEAD') {
    // A HEAD answered with a file's stream sends none of it: the stream is closed, not left open.
    if (body instanceof Readable) body.destroy();
    outgoing.end();
  } else if (body instanceof Readable) {
    try {
      await pipeline(body, outgoing);
    } catch {
      // The client went away or the bucket stream broke: the socket is closed, the client sees a short body.
      outgoing.destroy();
    }
  } else outgoing.end(body);
  const durationMs = performance.now() - started;
  log.write({
    method: request.method,
    path,
    status: response.status,
    durationMs: Math.round(durationMs * 10) / 10,
    account: response.accountId ?? null,
  });
  observe?.(response.route ?? UNMATCHED_ROUTE, request.method, response.status, durationMs / 1000);
}

/**
 * How long a connection closed after an error answer goes on taking (and dropping) what the client
 * still sends. Closed at once, with its bytes unread, the socket would answer them with a reset,
 * which can reach the client before it read the answer: it would see no 401, only a broken
 * connection. nginx's lingering close does the same.
 */
const LINGER_MS = 2_000;

function lingeringClose(incoming: IncomingMessage): void {
  const socket = incoming.socket;
  incoming.resume();
  socket.end();
  const cut = setTimeout(() => socket.destroy(), LINGER_MS);
  cut.unref();
  socket.once('close', () => clearTimeout(cut));
}

async function readBody(incoming: IncomingMessage): Promise<Buffer> {
  const declared = Number(incoming.headers['content-length'] ?? 0);
  if (declared > MAX_BODY_BYTES) throw new BodyTooLargeError();
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of incoming) {
      size += (chunk as Buffer).length;
      if (size > MAX_BODY_BYTES) throw new BodyTooLargeError();
      chunks.push(chunk as Buffer);
    }
  } catch (error) {
    if (error instanceof BodyTooLargeError) throw error;
    throw new ClientAbortedError(`the client closed the connection after ${size} bytes of the body (${(error as Error).message})`);
  }
  if (!incoming.complete) throw new ClientAbortedError(`the client closed the connection after ${size} bytes of the body`);
  return Buffer.concat(chunks);
}
