import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { HeadObjectCommand, S3Client } from '@aws-sdk/client-s3';

export interface ConditionalProxy {
  /** The endpoint a `tariff` process uses instead of the S3 server's. */
  url: string;
  /** Conditional PUTs refused with 412 so far. */
  refused: number;
  /** From the first answer to a request `matches` on, the store is gone: every later connection is refused. */
  stopAfter(matches: (method: string, key: string) => boolean): void;
  /**
   * From the first answer to a request `matches` on, every later request waits, unanswered and not
   * passed on, until `resume()`: its writer frozen right there. Resolves when that first answer is sent.
   */
  pauseAfter(matches: (method: string, key: string) => boolean): Promise<void>;
  resume(): void;
  close(): Promise<void>;
}

const PRECONDITION_FAILED =
  '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>PreconditionFailed</Code><Message>At least one of the pre-conditions you specified did not hold</Message></Error>';

/**
 * A stand-in in front of the test S3 server (s3rver, which ignores conditions) that honours
 * conditional PUTs as AWS S3, MinIO and R2 do: `If-None-Match: *` refused when the object exists,
 * `If-Match` refused unless it names the object's ETag, each with 412 PreconditionFailed; the check
 * and the write are one step per key. With `honour: false` it passes them on, as a store that
 * ignores conditions would.
 */
export async function conditionalProxy(
  s3: { endpoint: string; credentials: { AWS_ACCESS_KEY_ID: string; AWS_SECRET_ACCESS_KEY: string } },
  options: { honour: boolean } = { honour: true },
): Promise<ConditionalProxy> {
  const upstream = new URL(s3.endpoint);
  const client = new S3Client({
    endpoint: s3.endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: s3.credentials.AWS_ACCESS_KEY_ID, secretAccessKey: s3.credentials.AWS_SECRET_ACCESS_KEY },
  });
  const queues = new Map<string, Promise<void>>();
  const sockets = new Set<Socket>();
  let stopWhen: ((method: string, key: string) => boolean) | null = null;
  let stopped = false;
  let pauseWhen: ((method: string, key: string) => boolean) | null = null;
  let paused: { began: () => void; ended: Promise<void>; end: () => void } | null = null;
  const state = { refused: 0 };

  const currentTag = async (path: string): Promise<string | null> => {
    const [, bucket, ...key] = path.split('?')[0]!.split('/');
    try {
      return (await client.send(new HeadObjectCommand({ Bucket: bucket, Key: decodeURIComponent(key.join('/')) }))).ETag ?? null;
    } catch {
      return null;
    }
  };

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

  /** Runs `work` after every earlier conditional write to the same key. */
  const inTurn = <T>(key: string, work: () => Promise<T>): Promise<T> => {
    const before = queues.get(key) ?? Promise.resolve();
    const result = before.then(work);
    queues.set(
      key,
      result.then(
        () => {},
        () => {},
      ),
    );
    return result;
  };

  const server: Server = createServer(async (incoming, outgoing) => {
    // Gone: a request on a connection made before the stop gets no answer but a reset.
    if (stopped) return void incoming.socket.destroy();
    const chunks: Buffer[] = [];
    for await (const chunk of incoming) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    if (paused) await paused.ended;
    const path = incoming.url ?? '/';
    const ifMatch = incoming.headers['if-match'];
    const ifNoneMatch = incoming.headers['if-none-match'];
    const conditional = options.honour && incoming.method === 'PUT' && (ifMatch !== undefined || ifNoneMatch !== undefined);
    try {
      const answer = conditional
        ? await inTurn(path.split('?')[0]!, async () => {
            const tag = await currentTag(path);
            const holds = ifNoneMatch === '*' ? tag === null : tag !== null && tag === ifMatch;
            if (!holds) {
              state.refused += 1;
              return { status: 412, headers: { 'content-type': 'application/xml' }, body: Buffer.from(PRECONDITION_FAILED) };
            }
            return forward(incoming, body);
          })
        : await forward(incoming, body);
      const key = path.split('?')[0]!.split('/').slice(2).join('/');
      if (stopWhen?.(incoming.method ?? 'GET', decodeURIComponent(key))) outgoing.on('finish', stop);
      if (pauseWhen?.(incoming.method ?? 'GET', decodeURIComponent(key))) {
        pauseWhen = null;
        const began = pausing.began;
        let end = () => {};
        paused = { began, ended: new Promise<void>((resolve) => (end = resolve)), end: () => end() };
        outgoing.on('finish', began);
      }
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
  const pausing = { began: () => {} };
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    get refused() {
      return state.refused;
    },
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
    async close() {
      if (!stopped) stop();
      client.destroy();
    },
  };
}
