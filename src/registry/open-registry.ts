import { chmod, mkdir, open, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { errors } from '../errors.ts';
import type { Registry } from './registry.ts';
import { SqliteRegistry } from './sqlite-registry.ts';

/**
 * Opens the registry a URL names (env TARIFF_REGISTRY): `postgres://…` (optionally `?schema=name`)
 * for PostgreSQL, a SQLite file path or `sqlite:<path>`, or by default `<data-dir>/registry.sqlite`.
 */
export async function openRegistry(options: { dataDir: string; env: NodeJS.ProcessEnv; url?: string }): Promise<Registry> {
  const url = options.url ?? options.env.TARIFF_REGISTRY;
  if (url && /^postgres(ql)?:\/\//.test(url)) {
    const poolSize = options.env.TARIFF_PG_POOL_SIZE;
    if (poolSize !== undefined && !/^[1-9]\d*$/.test(poolSize))
      throw errors.usage(`TARIFF_PG_POOL_SIZE=${poolSize} is not a positive whole number`);
    // Loaded only for PostgreSQL deployments.
    const { PgRegistry } = await import('./pg-registry.ts');
    return PgRegistry.open(url, { poolSize: poolSize ? Number(poolSize) : undefined });
  }
  const path = url ? url.replace(/^sqlite:/, '') : join(options.dataDir, 'registry.sqlite');
  await privateFile(path);
  return new SqliteRegistry(path);
}

/**
 * The registry holds hashes of keys, sessions and sign-in tokens, and the accounts: only the
 * service's user may read it. A new folder is made 0700; the file is created 0600 (SQLite gives
 * its -wal and -shm files the same mode) and an existing one is narrowed to 0600.
 */
async function privateFile(path: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const handle = await open(path, 'a', 0o600);
  await handle.close();
  const mode = (await stat(path)).mode & 0o777;
  if (mode & 0o077) await chmod(path, mode & 0o700);
}
