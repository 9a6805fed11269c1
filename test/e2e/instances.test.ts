import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sessionCookie } from '../helpers/web-sign-in.ts';
import { PG_URL, postgresLocation } from '../helpers/registries.ts';
import { REPO, runCli } from '../helpers/run-cli.ts';
import { serveInProcess } from '../helpers/serve-in-process.ts';
import { startServe, type RunningServe } from '../helpers/serve-process.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const SAMPLE = join(REPO, 'fixtures/sample/tariff');
let services: RunningServe[] = [];
afterEach(async () => {
  await Promise.all(services.map((service) => service.stop()));
  services = [];
});

/**
 * Two services on different ports, one PostgreSQL registry, one bucket: what a load balancer spreads
 * over. One is a `tariff serve` process, the other runs in this process: two processes, each with its
 * own pool, caches and clock, share only the registry and the bucket.
 */
async function twoInstances() {
  const registry = await postgresLocation();
  const dataDirs = [await tempDir(), await tempDir()];
  const bucket = join(await tempDir(), 'bucket');
  const env = { TARIFF_REGISTRY: registry.url, TARIFF_BUCKET: bucket, TARIFF_MANIFEST_POLL_MS: '100' };
  const cli = (args: string[]) => runCli([...args, '--data-dir', dataDirs[0]!], { env });
  const publish = async (date: string) => {
    const out = join(dataDirs[0]!, 'build', date);
    await cli(['build', '--source', SAMPLE, '--date', date, '--out', out]);
    expect((await cli(['publish', out])).status).toBe(0);
  };
  await publish('2026-11-22');
  services = await Promise.all([startServe(['serve', '--data-dir', dataDirs[0]!], env), serveInProcess(dataDirs[1]!, env)]);
  const account = async (email: string, limit = 100) => {
    expect((await cli(['accounts', 'create', email, '--type', 'User', '--submit-limit', String(limit)])).status).toBe(0);
    return JSON.parse((await cli(['keys', 'create', email, '--json'])).stdout).key as string;
  };
  return { urls: services.map((service) => service.url), account, publish, dataDirs };
}

const get = (url: string, key: string) => fetch(`${url}/v1/version`, { headers: { authorization: `Bearer ${key}` } });

describe.skipIf(!PG_URL)('several instances on one PostgreSQL registry', () => {
  it('keep the read quota exact: 50 concurrent reads across two instances give 10 successes', async () => {
    const { urls, account } = await twoInstances();
    const key = await account('shop@example.it');
    const statuses = await Promise.all(
      Array.from({ length: 50 }, (_, i) => get(urls[i % 2]!, key).then(async (r) => (await r.arrayBuffer(), r.status))),
    );
    expect(statuses.filter((s) => s === 200)).toHaveLength(10);
    expect(statuses.filter((s) => s === 429)).toHaveLength(40);
  });

  it('never let two concurrent batches across instances exceed the hourly limit', async () => {
    const { urls, account } = await twoInstances();
    const key = await account('shop@example.it', 100);
    const batch = JSON.stringify({ items: Array.from({ length: 60 }, () => ({ barcode: '8001001001005', admCode: 1001 })) });
    const send = (url: string) =>
      fetch(`${url}/v1/barcodes`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: batch,
      });
    const statuses = await Promise.all([send(urls[0]!), send(urls[1]!)].map((p) => p.then((r) => r.status)));
    expect(statuses.sort()).toEqual([200, 429]);
  });

  it('refuse at once, on the other instance, a key revoked on the website of one', async () => {
    const { urls, account, dataDirs } = await twoInstances();
    const key = await account('shop@example.it');
    expect((await get(urls[1]!, key)).status).toBe(200);

    const site = urls[0]!;
    const session = await sessionCookie(site, dataDirs[0]!, 'shop@example.it');
    const page = await (await fetch(`${site}/account`, { headers: { cookie: session } })).text();
    const revokePath = /href="(\/account\/chiavi\/\d+\/revoca)"/.exec(page)![1]!;
    const sessionCsrf = /name="_csrf" value="([^"]+)"/.exec(page)![1]!;
    const revoked = await fetch(`${site}${revokePath}`, {
      method: 'POST',
      headers: { cookie: session, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ _csrf: sessionCsrf }),
    });
    expect(await revoked.text()).toContain('è stata revocata');

    expect((await get(urls[1]!, key)).status).toBe(401);
  });

  it('serve a release published while both run, on both', async () => {
    const { urls, account, publish } = await twoInstances();
    await publish('2026-12-01');
    for (const [i, url] of urls.entries()) {
      await services[i]!.logged((entry) => entry.event === 'release.switch' && entry.version === '20261201.1');
      const key = await account(`shop-${i}@example.it`);
      expect((await (await get(url, key)).json()).version).toBe('20261201.1');
    }
  });
});
