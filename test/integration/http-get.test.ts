import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { httpGet } from '../../src/sync/http-get.ts';

let server: Server | undefined;

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve) ?? resolve(null));
  server = undefined;
});

/** A loopback server answering every request with `handler`; its base URL. */
async function serve(handler: Parameters<typeof createServer>[1]): Promise<string> {
  server = createServer(handler);
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const signal = () => AbortSignal.timeout(30_000);

describe('httpGet, the sync client’s GET', () => {
  it('sends the headers given and reads the status, headers and body', async () => {
    const base = await serve((request, response) => {
      response.setHeader('ETag', '"abc"');
      response.end(JSON.stringify({ path: request.url, authorization: request.headers.authorization }));
    });
    const answer = await httpGet(`${base}/v1/version`, { headers: { authorization: 'Bearer k' }, signal: signal() });
    expect(answer.status).toBe(200);
    expect(answer.header('ETag')).toBe('"abc"');
    expect(answer.header('retry-after')).toBeUndefined();
    expect(JSON.parse(await answer.text())).toEqual({ path: '/v1/version', authorization: 'Bearer k' });
  });

  it('does not follow a redirect: the caller sees it', async () => {
    const base = await serve((_, response) => {
      response.writeHead(302, { location: 'http://127.0.0.1:9/elsewhere' }).end();
    });
    const answer = await httpGet(`${base}/v1/version`, { headers: {}, signal: signal() });
    expect(answer.status).toBe(302);
    expect(answer.header('location')).toBe('http://127.0.0.1:9/elsewhere');
  });

  it('refuses a text answer longer than its limit, and stops reading it', async () => {
    let written = 0;
    const base = await serve((_, response) => {
      const chunk = Buffer.alloc(64 * 1024, 'x');
      // An endless body: only the client's refusal ends it.
      const more = () => {
        let room = true;
        while (room) {
          room = response.write(chunk);
          written += chunk.length;
        }
      };
      response.on('drain', more);
      more();
    });
    const answer = await httpGet(`${base}/v1/version`, { headers: {}, signal: signal() });
    await expect(answer.text(100_000)).rejects.toThrow('the answer is longer than 100000 bytes');
    expect(written).toBeLessThan(64 * 1024 * 1024);
  });

  it('ends the call when its signal fires, with the signal’s reason as the cause', async () => {
    const base = await serve(() => {
      // Never answers.
    });
    const controller = new AbortController();
    const call = httpGet(`${base}/v1/version`, { headers: {}, signal: controller.signal });
    controller.abort(new Error('the deadline passed'));
    await expect(call).rejects.toMatchObject({ name: 'AbortError', cause: { message: 'the deadline passed' } });
  });
});
