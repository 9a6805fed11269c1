import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI, REPO } from '../helpers/run-cli.ts';
import { tempDir } from '../helpers/temp-dir.ts';

// Without a terminal (a log, cron), each line is written when it is known: a slow document must
// not hold back the lines before it. The slow document here is held until the line of the one
// before it has been read from the command's stderr: if lines waited for the end, nothing would move.
const LIST = readFileSync(join(REPO, 'fixtures/adm/listino-trinciati-2023-05-17.pdf'));

let server: Server | null = null;
afterEach(async () => {
  await new Promise((resolve) => server?.close(resolve));
});

describe('tariff fetch without a terminal', () => {
  it("writes each document's line as soon as it is known", async () => {
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    server = createServer(async (request, response) => {
      if (request.url === '/prezzi')
        return void response
          .writeHead(200, { 'content-type': 'text/html' })
          .end('<a href="/docs/first.pdf">first.pdf</a> <a href="/docs/second.pdf">second.pdf</a>');
      if (request.url === '/docs/first.pdf') return void response.writeHead(200, { 'content-type': 'application/pdf' }).end(LIST);
      if (request.url === '/docs/second.pdf') {
        await released;
        return void response.writeHead(200, { 'content-type': 'application/pdf' }).end(LIST);
      }
      response.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const page = `http://127.0.0.1:${(server.address() as AddressInfo).port}/prezzi`;

    const child = spawn(process.execPath, [CLI, 'fetch', '--source-page', page, '--data-dir', await tempDir()], {
      cwd: REPO,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (/first\.pdf (changed|unchanged)/.test(stderr)) release();
    });
    const status = await new Promise<number | null>((resolve) => child.on('close', resolve));
    const lines = stderr.split('\n').filter(Boolean);
    // The first document's line came before the second was sent: it was written when known.
    const first = lines.findIndex((line) => /first\.pdf changed/.test(line));
    const second = lines.findIndex((line) => /second\.pdf/.test(line));
    expect(first).toBeGreaterThanOrEqual(0);
    expect(second).toBeGreaterThan(first);
    // Both are the same list: the run fails for the seven categories with none, and says so.
    expect(status).toBe(1);
  });
});
