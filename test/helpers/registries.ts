import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import pg from 'pg';
import { afterEach } from 'vitest';
import { openPgRegistry, openSqliteRegistry } from '../../src/registry/open-registry.ts';
import { PgStore } from '../../src/registry/postgres/pg-store.ts';
import type { Registry } from '../../src/registry/registry.ts';
import { SqliteStore } from '../../src/registry/sqlite/sqlite-store.ts';
import type { Store } from '../../src/registry/store.ts';
import { tempDir } from './temp-dir.ts';
import { type StatusRules } from '../../src/barcodes/status-rules.ts';
import { DEFAULT_RULES } from '../../src/barcodes/load-rules.ts';

/** PostgreSQL for the tests: .ci/run starts one and sets this; without it, PostgreSQL cases are skipped locally and fail in CI. */
export const PG_URL = process.env.TARIFF_TEST_POSTGRES_URL;
if (!PG_URL && process.env.CI) throw new Error('TARIFF_TEST_POSTGRES_URL is not set: CI must start PostgreSQL (see .ci/run)');

const opened: { close(): Promise<void> }[] = [];
const schemas: string[] = [];

afterEach(async () => {
  await Promise.all(opened.splice(0).map((registry) => registry.close().catch(() => {})));
  if (PG_URL && schemas.length > 0) {
    const client = new pg.Client({ connectionString: PG_URL });
    await client.connect();
    for (const schema of schemas.splice(0)) await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await client.end();
  }
});

/** A fresh, empty registry location on a backend; `open` may be called several times (several instances). */
export interface RegistryLocation {
  /** TARIFF_REGISTRY for a `tariff` process. */
  url: string;
  /** The registry, with the default status rules unless others are given. */
  open(rules?: StatusRules): Promise<Registry>;
  /** The migrated store under the registry, for tests of the store port itself. */
  store(): Promise<Store>;
}

export async function sqliteLocation(): Promise<RegistryLocation> {
  const path = join(await tempDir(), 'registry.sqlite');
  return {
    url: path,
    open: async (rules = DEFAULT_RULES) => track(await openSqliteRegistry(path, { rules })),
    store: async () => {
      await (await openSqliteRegistry(path, { rules: DEFAULT_RULES })).close();
      return trackStore(new SqliteStore(path));
    },
  };
}

export async function postgresLocation(): Promise<RegistryLocation> {
  const schema = `t_${randomBytes(6).toString('hex')}`;
  schemas.push(schema);
  const url = `${PG_URL}${PG_URL!.includes('?') ? '&' : '?'}schema=${schema}`;
  return {
    url,
    open: async (rules = DEFAULT_RULES) => track(await openPgRegistry(url, { rules, poolSize: 4 })),
    store: async () => {
      await (await openPgRegistry(url, { rules: DEFAULT_RULES, poolSize: 1 })).close();
      return trackStore(await PgStore.open(url, { poolSize: 4 }));
    },
  };
}

function track(registry: Registry): Registry {
  opened.push(registry);
  return registry;
}

function trackStore(store: Store): Store {
  opened.push(store);
  return store;
}

/** Both backends, for describe.each: PostgreSQL only when it is available. */
export const BACKENDS: [string, () => Promise<RegistryLocation>][] = [
  ['SQLite', sqliteLocation],
  ...(PG_URL ? [['PostgreSQL', postgresLocation] as [string, () => Promise<RegistryLocation>]] : []),
];
