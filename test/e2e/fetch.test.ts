import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AuthorityServer } from '../helpers/authority-server.ts';
import { feed } from '../helpers/feed.ts';
import { onDay, runCli } from '../helpers/run-cli.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const CIGARETTES = feed('2026-11-01', { sigarette: [['1001', 'AURORA ROSSA', 'astuccio da 20 pezzi', '300,00', '6,00']] });
const FUTURE = feed('2026-12-01', { sigarette: [['1001', 'AURORA ROSSA', 'astuccio da 20 pezzi', '310,00', '6,20']] });
// Every run on a day the test sets, between the two lists' dates: "past" and "future" never depend on today.
const TODAY = onDay('2026-11-22');
// Short waits so retries do not slow the suite; the policy itself is unit-tested.
const FAST = {
  ...TODAY,
  TARIFF_FETCH_RETRY_BASE_MS: '20',
  TARIFF_FETCH_ATTEMPTS: '3',
  TARIFF_FETCH_BODY_TIMEOUT_MS: '500',
  TARIFF_FETCH_HEADERS_TIMEOUT_MS: '2000',
};

let authority: AuthorityServer;
let dataDir: string;
beforeEach(async () => {
  authority = await new AuthorityServer().start();
  dataDir = await tempDir();
});
afterEach(async () => {
  await authority.close();
});

const fetchList = (path = '/sigarette.xml', env: Record<string, string> = {}) =>
  runCli(['fetch', '--source-url', authority.url(path), '--data-dir', dataDir, '--json'], { env: { ...FAST, ...env } });
const snapshots = () => {
  try {
    return readdirSync(join(dataDir, 'snapshots')).sort();
  } catch {
    return [];
  }
};

describe('tariff fetch against the authority stand-in', () => {
  it('keeps a changed list as a snapshot named by its SHA-256, with where and when it came from', async () => {
    authority.lists.set('/sigarette.xml', { body: CIGARETTES });
    const result = await fetchList();
    expect(result.status).toBe(0);
    const [report] = JSON.parse(result.stdout).sources;
    expect(report).toMatchObject({ status: 'changed', newTariff: true, effectiveDates: [{ date: '2026-11-01', when: 'past' }] });
    expect(snapshots()).toEqual([`${report.sha256}.json`, `${report.sha256}.xml`]);
    expect(readFileSync(join(dataDir, 'snapshots', `${report.sha256}.xml`), 'utf8')).toBe(CIGARETTES);
    expect(JSON.parse(readFileSync(join(dataDir, 'snapshots', `${report.sha256}.json`), 'utf8'))).toMatchObject({
      url: authority.url('/sigarette.xml'),
      size: CIGARETTES.length,
      fetchedAt: expect.any(String),
    });
  });

  it('asks conditionally the next time, so an unchanged list costs nothing and is not stored twice', async () => {
    authority.lists.set('/sigarette.xml', { body: CIGARETTES });
    await fetchList();
    const again = await fetchList();
    expect(JSON.parse(again.stdout).sources[0]).toMatchObject({ status: 'unchanged' });
    const second = authority.requestsFor('/sigarette.xml')[1]!;
    expect(second.headers['if-none-match']).toMatch(/^"[0-9a-f]{16}"$/);
    expect(second.headers['if-modified-since']).toBe('Sun, 01 Nov 2026 06:00:00 GMT');
    expect(snapshots()).toHaveLength(2);
  });

  it('recognises unchanged bytes from a server without validators', async () => {
    authority.lists.set('/sigarette.xml', { body: CIGARETTES, validators: false });
    await fetchList();
    expect(JSON.parse((await fetchList()).stdout).sources[0]).toMatchObject({ status: 'unchanged' });
    expect(snapshots()).toHaveLength(2);
  });

  it('reports a new tariff with its effective date in the future', async () => {
    authority.lists.set('/sigarette.xml', { body: CIGARETTES });
    await fetchList();
    authority.lists.set('/sigarette.xml', { body: FUTURE });
    const result = await runCli(['fetch', '--source-url', authority.url('/sigarette.xml'), '--data-dir', dataDir], { env: FAST });
    expect(result.status).toBe(0);
    expect(result.stderr).toMatch(/sigarette\.xml changed: new tariff in force from 2026-12-01 \(future\)/);
    expect(snapshots()).toHaveLength(4);
  });

  it('retries 500s with backoff and succeeds', async () => {
    authority.lists.set('/sigarette.xml', { body: CIGARETTES, failures: 2 });
    const result = await fetchList();
    expect(JSON.parse(result.stdout).sources[0]).toMatchObject({ status: 'changed', attempts: 3 });
    expect(authority.requestsFor('/sigarette.xml')).toHaveLength(3);
  });

  it('honours Retry-After', async () => {
    authority.lists.set('/sigarette.xml', { body: CIGARETTES, failures: 1, failureStatus: 503, retryAfter: '1' });
    const result = await runCli(['fetch', '--source-url', authority.url('/sigarette.xml'), '--data-dir', dataDir], { env: FAST });
    expect(result.status).toBe(0);
    expect(result.stderr).toMatch(/HTTP 503; retry 2 in 1 s/);
  });

  it('gives up after the bounded number of tries, keeps the last snapshot, and exits 1', async () => {
    authority.lists.set('/sigarette.xml', { body: CIGARETTES });
    await fetchList();
    authority.lists.set('/sigarette.xml', { body: FUTURE, failures: 99 });
    const result = await fetchList();
    expect(result.status).toBe(1);
    expect(JSON.parse(result.stdout).sources[0]).toMatchObject({
      status: 'failed',
      attempts: 3,
      error: expect.stringContaining('HTTP 500 (gave up after 3 tries)'),
    });
    expect(authority.requestsFor('/sigarette.xml')).toHaveLength(4);
    expect(snapshots()).toHaveLength(2);
  });

  it('does not retry a 404', async () => {
    const result = await fetchList('/missing.xml');
    expect(result.status).toBe(1);
    expect(JSON.parse(result.stdout).sources[0]).toMatchObject({ attempts: 1, error: expect.stringContaining('HTTP 404') });
    expect(authority.requestsFor('/missing.xml')).toHaveLength(1);
  });

  it('never follows a redirect of a page or a document to this machine, the local network or the metadata service', async () => {
    // A server on another loopback address: a redirect must not reach it.
    const reached: string[] = [];
    const elsewhere = createServer((request, response) => {
      reached.push(request.url ?? '');
      response.end(CIGARETTES);
    });
    await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.2', resolve));
    const port = (elsewhere.address() as AddressInfo).port;
    try {
      for (const target of [`http://127.0.0.2:${port}/x.xml`, 'http://169.254.169.254/latest/meta-data/', `http://[::1]:${port}/x.xml`]) {
        authority.lists.set('/moved.xml', { body: '', redirect: target });
        authority.lists.set('/page', { body: '', redirect: target });
        const document = await fetchList('/moved.xml');
        expect(document.status, target).toBe(1);
        expect(JSON.parse(document.stdout).sources[0]).toMatchObject({
          status: 'failed',
          attempts: 1,
          error: expect.stringMatching(
            /not following a redirect to .*: .* is an? (loopback|link-local) address, and not one of the allowed hosts/,
          ),
        });
        const page = await runCli(['fetch', '--source-page', authority.url('/page'), '--data-dir', dataDir, '--json'], { env: FAST });
        expect(page.status, target).not.toBe(0);
        expect(page.stdout + page.stderr, target).toContain('not following a redirect to');
      }
      expect(reached).toEqual([]);
    } finally {
      await new Promise((resolve) => elsewhere.close(resolve));
    }
  });

  it('follows a redirect to a host the operator names', async () => {
    authority.lists.set('/sigarette.xml', { body: CIGARETTES });
    const other = `http://localhost:${new URL(authority.url('/')).port}`;
    authority.lists.set('/moved.xml', { body: '', redirect: `${other}/sigarette.xml` });
    expect((await fetchList('/moved.xml')).status).toBe(1);
    const named = await fetchList('/moved.xml', { TARIFF_SOURCE_HOSTS: new URL(other).host });
    expect(named.status).toBe(0);
    expect(JSON.parse(named.stdout).sources[0]).toMatchObject({ status: 'changed', finalUrl: `${other}/sigarette.xml` });
  });

  it('refuses a document over the byte cap with one message and one JSON document, whatever its length says', async () => {
    const big = Buffer.alloc(64 * 1024, 'x');
    // Announced over the cap; sent without a length (chunked); announced under it and sent longer.
    const server = createServer((request, response) => {
      if (request.url === '/announced.xml') return void response.writeHead(200, { 'content-length': big.length }).end(big);
      if (request.url === '/chunked.xml') return void response.writeHead(200).end(big);
      const socket = response.socket!;
      socket.end(`HTTP/1.1 200 OK\r\ncontent-type: application/xml\r\ncontent-length: 500\r\nconnection: close\r\n\r\n${big.toString()}`);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      for (const path of ['/announced.xml', '/chunked.xml', '/longer.xml']) {
        for (const command of [
          ['fetch', '--source-url'],
          ['build', '--out', join(dataDir, 'out'), '--source'],
        ]) {
          const result = await runCli([...command, `${base}${path}`, '--data-dir', dataDir, '--json'], {
            env: { ...FAST, TARIFF_FETCH_MAX_BYTES: '1000' },
            process: true,
          });
          const where = `${command[0]} ${path}`;
          expect(result.status, where).toBe(1);
          expect(result.stderr, where).not.toMatch(/Unhandled|RequestAbortedError|at .*\(/);
          // One document on stdout, whatever failed.
          expect(() => JSON.parse(result.stdout), `${where}: ${result.stdout}`).not.toThrow();
          if (path !== '/longer.xml') expect(result.stderr + result.stdout, where).toContain('1000 bytes allowed (TARIFF_FETCH_MAX_BYTES)');
        }
      }
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('times out a stalled body and retries', async () => {
    authority.lists.set('/sigarette.xml', { body: CIGARETTES, stalls: 1 });
    const result = await fetchList();
    expect(JSON.parse(result.stdout).sources[0]).toMatchObject({ status: 'changed', attempts: 2 });
  });

  it('never keeps a truncated body', async () => {
    authority.lists.set('/sigarette.xml', { body: CIGARETTES, truncations: 99 });
    const result = await fetchList();
    expect(result.status).toBe(1);
    expect(JSON.parse(result.stdout).sources[0]).toMatchObject({ status: 'failed', error: expect.stringMatching(/broke off|truncated/) });
    expect(snapshots()).toEqual([]);
  });

  it('never keeps a complete download that is not a valid list', async () => {
    authority.lists.set('/sigarette.xml', { body: CIGARETTES.slice(0, 200) });
    const result = await fetchList();
    expect(result.status).toBe(1);
    expect(JSON.parse(result.stdout).sources[0].error).toContain('the XML is malformed');
  });

  it('follows redirects and reports the address the list came from', async () => {
    authority.lists.set('/old/sigarette.xml', { body: '', redirect: '/moved' });
    authority.lists.set('/moved', { body: '', redirect: authority.url('/sigarette.xml') });
    authority.lists.set('/sigarette.xml', { body: CIGARETTES });
    const result = await fetchList('/old/sigarette.xml');
    expect(result.status).toBe(0);
    expect(JSON.parse(result.stdout).sources[0]).toMatchObject({ status: 'changed', finalUrl: authority.url('/sigarette.xml') });
  });

  it('stops following a redirect loop after the bounded number of hops', async () => {
    authority.lists.set('/a', { body: '', redirect: '/b' });
    authority.lists.set('/b', { body: '', redirect: '/a' });
    const result = await fetchList('/a', { TARIFF_FETCH_MAX_REDIRECTS: '3' });
    expect(result.status).toBe(1);
    expect(JSON.parse(result.stdout).sources[0]).toMatchObject({ status: 'failed', error: expect.stringMatching(/more than 3 redirects/) });
  });

  it('gives up on a server that trickles the body, at the overall deadline', async () => {
    // One byte every 100 ms never trips the body timeout; only the overall deadline ends it.
    authority.lists.set('/sigarette.xml', { body: CIGARETTES, trickleMs: 100 });
    const result = await fetchList('/sigarette.xml', { TARIFF_FETCH_DEADLINE_SECONDS: '1', TARIFF_FETCH_BODY_TIMEOUT_MS: '60000' });
    expect(result.status).toBe(1);
    expect(JSON.parse(result.stdout).sources[0]).toMatchObject({
      status: 'failed',
      error: expect.stringMatching(/no complete answer within the deadline of 1 s \(TARIFF_FETCH_DEADLINE_SECONDS\)/),
    });
    expect(snapshots()).toEqual([]);
  });

  it('refuses to run without a source page or URL (usage, exit 2)', async () => {
    const result = await runCli(['fetch', '--data-dir', dataDir]);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('No source page or URL is configured');
  });
});
