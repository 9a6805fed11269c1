import type { IncomingMessage } from 'node:http';

/** One answer to a GET: its status and headers, with the body still to read. */
export interface HttpAnswer {
  status: number;
  /** A header's value (names in any case); undefined when absent. */
  header(name: string): string | undefined;
  /** The body as a stream, for a download. */
  body: IncomingMessage;
  /** The body as text, refused past `limitBytes`. */
  text(limitBytes?: number): Promise<string>;
  /** Drops the body unread and closes the connection. */
  discard(): void;
}

/** A JSON answer (a manifest, a key list, an error body) is a few kilobytes: past this it is not one. */
const TEXT_LIMIT_BYTES = 1024 * 1024;

/**
 * A GET through Node.js's own HTTP client. Redirects are never followed (node:http does not): the
 * caller reports them as any other answer. `signal` ends the call whenever it fires, body included.
 *
 * Taken with process.getBuiltinModule rather than an `import`: an ES import of node:http reads
 * every export, and three of them (WebSocket, CloseEvent, MessageEvent) are getters that load the
 * undici copy inside Node.js, 40 ms of every start of `tariff sync` that its two GETs never use.
 */
export function httpGet(url: string, options: { headers: Record<string, string>; signal: AbortSignal }): Promise<HttpAnswer> {
  const target = new URL(url);
  const client = target.protocol === 'https:' ? process.getBuiltinModule('node:https') : process.getBuiltinModule('node:http');
  return new Promise((resolve, reject) => {
    const request = client.get(target, { headers: options.headers, signal: options.signal }, (response) => resolve(answer(response)));
    request.on('error', reject);
  });
}

function answer(response: IncomingMessage): HttpAnswer {
  return {
    status: response.statusCode ?? 0,
    header: (name) => {
      const value = response.headers[name.toLowerCase()];
      return Array.isArray(value) ? value.join(', ') : value;
    },
    body: response,
    text: (limitBytes = TEXT_LIMIT_BYTES) => readText(response, limitBytes),
    discard: () => response.destroy(),
  };
}

async function readText(response: IncomingMessage, limitBytes: number): Promise<string> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of response as AsyncIterable<Buffer>) {
    bytes += chunk.length;
    if (bytes > limitBytes) {
      response.destroy();
      throw new Error(`the answer is longer than ${limitBytes} bytes`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
