import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** Where a write request of one writer is held by the network (the lost-answer matrix, test/paused/lost-answers.test.ts). */
export type HoldMode =
  /** The request reaches the store only when let go. */
  | 'request held'
  /** The store answers at once; the answer reaches the writer only when let go. */
  | 'answer held'
  /** The store answers at once; the answer is lost (the connection dropped): the writer's retry is held until let go. */
  | 'answer lost';

/** Every way a write request is held, in the order the lost-answer matrix takes them. */
export const HOLD_MODES: readonly HoldMode[] = ['request held', 'answer held', 'answer lost'];

export interface StoreProxy {
  /** The endpoint a `tariff` process uses instead of the store's. */
  url: string;
  /** Conditional PUTs the store refused with 412 so far. */
  refused: number;
  /** The line of every write request (PUT, POST, DELETE) that reached the proxy, in order ("PUT current.json If-Match"). */
  writes: readonly string[];
  /** From the first answer to a request `matches` on, the store is gone: every later connection is refused. */
  stopAfter(matches: (method: string, key: string) => boolean): void;
  /**
   * From the first answer to a request `matches` on, every later request waits, unanswered and not
   * passed on, until `resume()`: its writer frozen right there. Resolves when that first answer is sent.
   */
  pauseAfter(matches: (method: string, key: string) => boolean): Promise<void>;
  resume(): void;
  /**
   * Holds the `n`th write request (PUT, POST, DELETE) from now on, or the first whose line
   * `which` matches, as `mode` says. `held` resolves with the
   * request's line ("PUT current.json If-Match") once it is held, or null if `release` came first;
   * `release` lets it go on.
   */
  holdWrite(which: number | ((line: string) => boolean), mode: HoldMode): { held: Promise<string | null>; release(): void };
  close(): Promise<void>;
}

/**
 * A proxy of the tests' own in front of an S3 store, for what a network does to requests: a store
 * gone after a chosen request, a writer frozen there, a request or its answer held or lost. It
 * decides nothing: every request, conditions included, goes to the store as sent, and the store's
 * answer comes back as it gave it.
 */
export async function storeProxy(s3: { endpoint: string }): Promise<StoreProxy> {
  const upstream = new URL(s3.endpoint);
  const sockets = new Set<Socket>();
  let stopWhen: ((method: string, key: string) => boolean) | null = null;
  let stopped = false;
  let pauseWhen: ((method: string, key: string) => boolean) | null = null;
  let paused: { ended: Promise<void>; end: () => void } | null = null;
  const pausing = { began: () => {} };
  const state = { refused: 0, writes: 0 };
  const writeLines: string[] = [];
  let hold: {
    which: number | ((line: string) => boolean);
    mode: HoldMode;
    heldAs: (line: string | null) => void;
    released: Promise<void>;
    retry: boolean;
  } | null = null;

  const forward = (incoming: IncomingMessage, body: Buffer) =>
    new Promise<{ status: number; headers: IncomingMessage['headers']; body: Buffer }>((resolve, reject) => {
      const headers = { ...incoming.headers };
      // Not signed by the SDK, and the body is sent whole here.
      delete headers.expect;
      const out = request(
        { host: upstream.hostname, port: upstream.port, method: incoming.method, path: incoming.url, headers },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, body: Buffer.concat(chunks) }));
          response.on('error', reject);
        },
      );
      out.on('error', reject);
      out.end(body);
    });

  const keyOf = (path: string) => decodeURIComponent(path.split('?')[0]!.split('/').slice(2).join('/'));
  const lineOf = (incoming: IncomingMessage) => {
    const conditions = ['if-match', 'if-none-match'].filter((name) => incoming.headers[name] !== undefined);
    const key = keyOf(incoming.url ?? '/');
    const what = incoming.method === 'POST' && /[?&]delete/.test(incoming.url ?? '') ? 'DELETE (batch)' : incoming.method;
    return [
      what,
      key.split('/').slice(1).join('/') || key,
      ...conditions.map((name) => (name === 'if-match' ? 'If-Match' : 'If-None-Match')),
    ].join(' ');
  };

  const server: Server = createServer(async (incoming, outgoing) => {
    // Gone: a request on a connection made before the stop gets no answer but a reset.
    if (stopped) return void incoming.socket.destroy();
    const chunks: Buffer[] = [];
    for await (const chunk of incoming) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    if (paused) await paused.ended;
    const method = incoming.method ?? 'GET';
    const isWrite = ['PUT', 'POST', 'DELETE'].includes(method);
    const number = isWrite ? (state.writes += 1) : 0;
    if (isWrite) writeLines.push(lineOf(incoming));
    const chosen = (which: number | ((line: string) => boolean)) =>
      typeof which === 'number' ? number === which : which(lineOf(incoming));
    const holding = hold && isWrite && (hold.retry || chosen(hold.which)) ? hold : null;
    try {
      if (holding && (holding.mode === 'request held' || holding.retry)) {
        hold = null;
        holding.heldAs(lineOf(incoming));
        await holding.released;
      }
      const answer = await forward(incoming, body);
      if (method === 'PUT' && answer.status === 412) state.refused += 1;
      if (holding?.mode === 'answer lost' && !holding.retry) {
        // The answer is lost on the way: the writer's SDK tries again, and that try is held.
        holding.retry = true;
        return void outgoing.destroy();
      }
      if (holding?.mode === 'answer held') {
        hold = null;
        holding.heldAs(lineOf(incoming));
        await holding.released;
      }
      const key = keyOf(incoming.url ?? '/');
      if (stopWhen?.(method, key)) outgoing.on('finish', stop);
      if (pauseWhen?.(method, key)) {
        pauseWhen = null;
        let end = () => {};
        paused = { ended: new Promise<void>((resolve) => (end = resolve)), end: () => end() };
        outgoing.on('finish', pausing.began);
      }
      if (outgoing.destroyed) return;
      outgoing.writeHead(answer.status, answer.headers).end(answer.body);
    } catch {
      outgoing.destroy();
    }
  });
  server.on('connection', (socket) => {
    if (stopped) return socket.destroy();
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  const stop = () => {
    stopped = true;
    server.close();
    for (const socket of sockets) socket.destroy();
  };
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    get refused() {
      return state.refused;
    },
    writes: writeLines,
    stopAfter(matches) {
      stopWhen = matches;
    },
    pauseAfter(matches) {
      pauseWhen = matches;
      return new Promise<void>((resolve) => (pausing.began = resolve));
    },
    resume() {
      paused?.end();
      paused = null;
    },
    holdWrite(which, mode) {
      let heldAs: (line: string | null) => void = () => {};
      let release = () => {};
      const held = new Promise<string | null>((resolve) => (heldAs = resolve));
      const released = new Promise<void>((resolve) => (release = resolve));
      hold = { which, mode, heldAs, released, retry: false };
      state.writes = 0;
      return {
        held,
        release() {
          hold = null;
          heldAs(null);
          release();
        },
      };
    },
    async close() {
      if (!stopped) stop();
    },
  };
}
