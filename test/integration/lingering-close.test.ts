import { connect } from 'node:net';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { listen, type ListeningServer } from '../../src/server/node-adapter.ts';
import { RequestLog } from '../../src/server/request-log.ts';

let server: ListeningServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

/** Sends a request whose chunked body never ends, reads nothing for `lateMs`, then reads until the server closes. */
function endlessBodyReadLate(port: number, lateMs: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1' });
    let received = '';
    socket.on('error', () => {});
    socket.on('connect', () => {
      socket.write('POST /v1/barcodes HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n');
      socket.pause();
      const feeder = setInterval(() => socket.writable && socket.write(`400\r\n${'x'.repeat(1024)}\r\n`), 2);
      socket.on('close', () => {
        clearInterval(feeder);
        resolve(received);
      });
      // A client busy elsewhere: it reads its answer only later, while its body goes on being sent.
      setTimeout(() => {
        socket.on('data', (chunk) => (received += chunk));
        socket.resume();
      }, lateMs);
    });
  });
}

describe('an error answer to a body still arriving', () => {
  it('reaches a client that reads it late: the connection lingers instead of being reset', async () => {
    const quiet = new Writable({ write: (_chunk, _encoding, done) => done() });
    const body = JSON.stringify({ error: 'invalid_api_key', message: 'Chiave non valida.' });
    server = await listen(async () => ({ status: 401, headers: { 'content-type': 'application/json' }, body }), {
      host: '127.0.0.1',
      port: 0,
      log: new RequestLog(quiet),
    });
    const port = Number(new URL(server.url).port);
    for (let i = 0; i < 3; i++) {
      const received = await endlessBodyReadLate(port, 200);
      expect(received).toMatch(/^HTTP\/1\.1 401 /);
      expect(received).toContain('"error":"invalid_api_key"');
      expect(received.toLowerCase()).toContain('connection: close');
    }
  });
});
