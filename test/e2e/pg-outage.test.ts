import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { privatePostgres, type PrivatePostgres } from '../helpers/private-postgres.ts';
import { REPO, runCli } from '../helpers/run-cli.ts';
import { serveInProcess } from '../helpers/serve-in-process.ts';
import type { RunningServe } from '../helpers/serve-process.ts';
import { tempDir } from '../helpers/temp-dir.ts';

let postgres: PrivatePostgres | null = null;
let service: RunningServe | null = null;
// A cluster of its own: initdb takes seconds idle, a minute or more with every core busy.
beforeAll(async () => {
  postgres = await privatePostgres();
}, 600_000);
afterAll(async () => {
  await service?.stop();
  postgres?.close();
});

const DAY_MS = 86_400_000;

describe('PostgreSQL stopped under load (a private cluster: needs root and Debian’s PostgreSQL)', () => {
  it('answers 503 with Retry-After while it is down, never 500, and 200 again once it is back, without a restart', async (context) => {
    if (!postgres) return context.skip('no private PostgreSQL cluster can be made here (not root, or no PostgreSQL installed)');
    const dataDir = await tempDir();
    const registry = { TARIFF_REGISTRY: postgres.url };
    const cli = (args: string[]) => runCli([...args, '--data-dir', dataDir], { env: registry });
    const out = join(dataDir, 'build');
    expect((await cli(['build', '--source', join(REPO, 'fixtures/sample/tariff'), '--date', '2026-11-22', '--out', out])).status).toBe(0);
    expect((await cli(['publish', out])).status).toBe(0);
    expect((await cli(['accounts', 'create', 'cassa@example.it', '--type', 'User'])).status).toBe(0);
    const key = JSON.parse((await cli(['keys', 'create', 'cassa@example.it', '--json'])).stdout).key as string;
    // Each request on a day of its own: the read quota is not what is tested.
    let clock = Date.parse('2026-11-22T10:00:00Z');
    service = await serveInProcess(dataDir, { ...registry, TARIFF_PG_POOL_SIZE: '4' }, { now: () => new Date((clock += DAY_MS)) });
    const seen: { status: number; retryAfter: string | null; at: number }[] = [];
    const ask = async () => {
      const answer = await fetch(`${service!.url}/v1/version`, {
        headers: { authorization: `Bearer ${key}` },
        signal: AbortSignal.timeout(10_000),
      });
      await answer.arrayBuffer();
      seen.push({ status: answer.status, retryAfter: answer.headers.get('retry-after'), at: Date.now() });
      return answer.status;
    };
    /** Ten requests a second until `until` says so, or the bound (in seconds) passes; true when it did. */
    const load = async (until: () => boolean, seconds: number) => {
      const end = Date.now() + seconds * 1000;
      while (Date.now() < end) {
        await Promise.all([ask(), new Promise((resolve) => setTimeout(resolve, 100))]);
        if (until()) return true;
      }
      return false;
    };
    const count = (status: number, from = 0) => seen.slice(from).filter((entry) => entry.status === status).length;

    expect(await load(() => count(200) >= 10, 10)).toBe(true);
    postgres.stop();
    const down = seen.length;
    expect(await load(() => count(503, down) >= 10, 15)).toBe(true);
    postgres.start();
    const back = Date.now();
    const up = seen.length;
    // A guard, not a speed claim: the pool reconnects on the next request (docs/operations.md).
    expect(await load(() => count(200, up) >= 1, 30), 'a 200 once PostgreSQL is back').toBe(true);
    expect(seen.find((entry) => entry.status === 200 && entry.at >= back)).toBeDefined();

    expect(seen.map((entry) => entry.status).filter((status) => status !== 200 && status !== 503)).toEqual([]);
    expect(seen.filter((entry) => entry.status === 503).every((entry) => entry.retryAfter === '30')).toBe(true);
    expect(service.log.filter((entry) => entry.event === 'request.error')).toEqual([]);
    expect(service.log).toContainEqual(
      expect.objectContaining({
        event: 'request.unavailable',
        condition: expect.stringMatching(/database_unreachable|service_unreachable/),
      }),
    );
  }, 120_000);
});
