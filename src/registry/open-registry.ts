import { mkdir } from 'node:fs/promises';
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
    if (poolSize !== undefined && !/^[1-9]\d*$/.test(poolSize)) throw errors.usage(`TARIFF_PG_POOL_SIZE=${poolSize} is not a positive whole number`);
    // Loaded only for PostgreSQL deployments.
    const { PgRegistry } = await import('./pg-registry.ts');
    return PgRegistry.open(url, { poolSize: poolSize ? Number(poolSize) : undefined });
  }
  const path = url ? url.replace(/^sqlite:/, '') : join(options.dataDir, 'registry.sqlite');
  await mkdir(dirname(path), { recursive: true });
  return new SqliteRegistry(path);
}
