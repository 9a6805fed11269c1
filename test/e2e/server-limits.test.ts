import { connect, type Socket } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openRegistry } from '../../src/registry/open-registry.ts';
import { runCli } from '../helpers/run-cli.ts';
import { serveInProcess } from '../helpers/serve-in-process.ts';
import { startServe, type RunningServe } from '../helpers/serve-process.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import { waitFor } from '../helpers/wait-for.ts';
import { DEFAULT_RULES } from '../../src/barcodes/load-rules.ts';

let dataDir: string;
let service: RunningServe | null = null;
beforeEach(async () => {
  dataDir = await tempDir();
});
afterEach(async () => {
  await service?.stop();
  service = null;
});

/** The service in this process: what it answers needs no process start-up; signals and workers (below) do. */
async function serve(env: Record<string, string> = {}) {
  service = await serveInProcess(dataDir, env);
  return new URL(service.url);
}

/** How many whole HTTP answers `text` holds (each head with its Content-Length body). */
function answers(text: string): number {
  let count = 0;
  for (let at = 0; ; count += 1) {
    const head = text.indexOf('\r\n\r\n', at);
    if (head === -1) return count;
    const length = Number(/content-length: (\d+)/i.exec(text.slice(at, head))?.[1] ?? 0);
    if (text.length < head + 4 + length) return count;
    at = head + 4 + length;
  }
}

/** A raw connection, recording what the server sends and whether it closed. */
async function open(
  url: URL,
  options: { allowHalfOpen?: boolean } = {},
): Promise<{ socket: Socket; received: () => string; closed: () => boolean }> {
  const socket = connect({ port: Number(url.port), host: url.hostname, allowHalfOpen: options.allowHalfOpen ?? false });
  let data = '';
  let closed = false;
  socket.on('data', (chunk) => (data += chunk));
  socket.on('close', () => (closed = true));
  socket.on('error', () => {});
  await new Promise((resolve) => socket.once('connect', resolve));
  return { socket, received: () => data, closed: () => closed };
}

describe('the HTTP server against slow, endless and odd clients', () => {
  it('answers 401 to an unauthenticated endless body and closes the connection instead of reading it', async () => {
    const url = await serve();
    const { socket, received, closed } = await open(url);
    socket.write(
      `POST /v1/barcodes HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ttd_wrong\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`,
    );
    const feeder = setInterval(() => socket.writable && socket.write('400\r\n' + 'x'.repeat(1024) + '\r\n'), 5);
    try {
      await waitFor(closed, 'the server to close the connection');
    } finally {
      clearInterval(feeder);
    }
    expect(received()).toMatch(/^HTTP\/1\.1 401 /);
    expect(received()).toContain('"error":"invalid_api_key"');
  });

  it('logs a client that aborts mid-body as aborted, not as a server error', async () => {
    expect((await runCli(['accounts', 'create', 'shop@example.it', '--type', 'User', '--data-dir', dataDir])).status).toBe(0);
    const key = JSON.parse((await runCli(['keys', 'create', 'shop@example.it', '--json', '--data-dir', dataDir])).stdout).key;
    const url = await serve();
    const { socket } = await open(url);
    const continued = new Promise((resolve) => socket.once('data', resolve));
    socket.write(
      `POST /v1/barcodes HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\n` +
        `Content-Length: 5000\r\nExpect: 100-continue\r\n\r\n`,
    );
    // Node answers 100 Continue once the request reached the handler: the body read is under way.
    await continued;
    socket.write('{"items":[');
    socket.destroy();
    await service!.logged((entry) => entry.event === 'request.aborted');
    expect(service!.log.filter((entry) => entry.event === 'request.error')).toEqual([]);
    expect(service!.log.some((entry) => entry.status === 500)).toBe(false);
    expect((await fetch(`${url.origin}/healthz`)).status).toBeLessThan(500);
  });

  it('answers an unknown Expect with a JSON 417', async () => {
    const url = await serve();
    const { socket, received, closed } = await open(url);
    socket.write(`GET /v1/version HTTP/1.1\r\nHost: ${url.host}\r\nExpect: bogus\r\n\r\n`);
    await waitFor(closed, 'the answer');
    expect(received()).toMatch(/^HTTP\/1\.1 417 /);
    expect(received()).toContain('"error":"expectation_failed"');
  });

  it('cuts off a client that trickles its headers, and frees its slot even when the client ignores the answer', async () => {
    const url = await serve({ TARIFF_HEADERS_TIMEOUT_MS: '300', TARIFF_MAX_CONNECTIONS: '1' });
    // An attacker's socket: it keeps its side open and goes on sending after the server's answer.
    const { socket, closed, received } = await open(url, { allowHalfOpen: true });
    socket.write(`GET /v1/version HTTP/1.1\r\nHost: ${url.host}\r\n`);
    const trickle = setInterval(() => socket.writable && socket.write('X-Slow: 1\r\n'), 50);
    try {
      await waitFor(closed, 'the server to close the slow connection');
    } finally {
      clearInterval(trickle);
    }
    expect(received()).toMatch(/^HTTP\/1\.1 408 /);
    expect((await fetch(`${url.origin}/healthz`)).status).toBeLessThan(500);
  });

  it('refuses connections beyond TARIFF_MAX_CONNECTIONS, and serves again once they close', async () => {
    const url = await serve({ TARIFF_MAX_CONNECTIONS: '2' });
    const held = [await open(url), await open(url)];
    const extra = await open(url);
    await waitFor(extra.closed, 'the third connection to be refused');
    for (const connection of held) connection.socket.destroy();
    await waitFor(
      async () =>
        (await fetch(`${url.origin}/healthz`).then(
          (r) => r.status,
          () => 0,
        )) > 0,
      'a connection to be accepted again',
    );
  });

  it.each([1, 2])('stops on SIGTERM with %i worker(s) once the grace is over, cutting a request that never finishes', async (workers) => {
    expect((await runCli(['accounts', 'create', 'shop@example.it', '--type', 'User', '--data-dir', dataDir])).status).toBe(0);
    const key = JSON.parse((await runCli(['keys', 'create', 'shop@example.it', '--json', '--data-dir', dataDir])).stdout).key;
    // Only the grace can end this request: its own time limits are far beyond the test's.
    service = await startServe(['serve', '--data-dir', dataDir, '--workers', String(workers)], {
      TARIFF_SHUTDOWN_GRACE_MS: '300',
      TARIFF_REQUEST_TIMEOUT_MS: '600000',
      TARIFF_IDLE_TIMEOUT_MS: '600000',
    });
    const url = new URL(service.url);
    const { socket, received } = await open(url);
    socket.write(
      `POST /v1/barcodes HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\n` +
        `Content-Length: 5000\r\nExpect: 100-continue\r\n\r\n`,
    );
    // Node answers 100 Continue once the request reached the handler: from here it is under way.
    await waitFor(() => received().includes('100 Continue'), 'the request to be under way');
    socket.write('{"items":[');
    const stopping = service;
    service = null;
    expect(await stopping.stop()).toBe(0);
    expect(stopping.log.at(-1)).toMatchObject({ event: 'service.stopped' });
    // Each process says it stopped once at most (a worker still starting when SIGTERM came says nothing), its supervisor last.
    const stopped = stopping.log.filter((entry) => entry.event === 'service.stopped').length;
    expect(stopped).toBeGreaterThanOrEqual(1);
    expect(stopped).toBeLessThanOrEqual(workers === 1 ? 1 : workers + 1);
  });

  it.each([1, 2])(
    'SIGTERM under 32 keep-alive connections, %i worker(s): every request sent before it gets its whole answer, then exit 0',
    async (workers) => {
      service = await startServe(['serve', '--data-dir', dataDir, '--workers', String(workers)], { TARIFF_SHUTDOWN_GRACE_MS: '5000' });
      const url = new URL(service.url);
      let signalled = false;
      /** What each request came to: answered whole, or cut; and whether it had been written out before the signal. */
      const outcomes: { before: boolean; whole: boolean }[] = [];
      const client = async () => {
        const { socket, received, closed } = await open(url);
        /** Resolves at the next data or close on the connection. */
        const next = () =>
          new Promise<void>((resolve) => {
            const done = () => {
              socket.off('data', done);
              socket.off('close', done);
              resolve();
            };
            socket.on('data', done);
            socket.on('close', done);
          });
        for (let answered = 0; ; answered += 1) {
          const before = await new Promise<boolean>((resolve) =>
            socket.write(`GET /healthz HTTP/1.1\r\nHost: ${url.host}\r\n\r\n`, (error) => resolve(!error && !signalled)),
          );
          while (answers(received()) <= answered && !closed()) await next();
          const whole = answers(received()) > answered;
          outcomes.push({ before, whole });
          if (!whole || closed()) return socket.destroy();
        }
      };
      const clients = Array.from({ length: 32 }, () => client());
      await waitFor(() => outcomes.length >= 320, 'the connections to be busy');
      const stopping = service;
      service = null;
      signalled = true;
      const status = await stopping.stop();
      await Promise.all(clients);
      expect(status).toBe(0);
      const cut = outcomes.filter((outcome) => outcome.before && !outcome.whole);
      expect(cut, `${cut.length} of ${outcomes.filter((o) => o.before).length} requests sent before the signal were cut`).toEqual([]);
    },
  );

  it('purges expired registry rows and vets the self-service accounts of age in the background', async () => {
    const registry = await openRegistry({ dataDir, rules: DEFAULT_RULES });
    for (let i = 0; i < 5; i++) await registry.countRequest(`sign-in:client:10.0.0.${i}`, '2026-01-01T10:00:00.000Z', 30);
    const signedUpAt = new Date('2026-01-01T10:00:00Z');
    const signUp = { type: 'User' as const, organisation: 'Tabacchi Uno', rulesVersion: '1', tokenHash: 'c'.repeat(64) };
    await registry.createSignUp({ ...signUp, email: 'uno@example.it', expiresAt: new Date('2026-01-01T11:00:00Z') }, signedUpAt);
    await registry.confirmSignUp(signUp.tokenHash, [], signedUpAt);
    await registry.close();
    await serve({ TARIFF_PURGE_INTERVAL_SECONDS: '1' });
    await service!.logged((entry) => entry.event === 'accounts.vetted');
    expect(service!.log.find((entry) => entry.event === 'registry.purged')).toMatchObject({ request_limits: 5 });
    expect(service!.log.find((entry) => entry.event === 'accounts.vetted')).toMatchObject({ count: 1 });
  });
});
