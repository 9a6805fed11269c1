import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { errors } from '../errors.ts';
import type { Registry } from './registry.ts';
import { SqliteRegistry } from './sqlite-registry.ts';

/**
 * Opens the registry a URL names (env TARIFF_REGISTRY): a SQLite file path, `sqlite:<path>`, or
 * by default `<data-dir>/registry.sqlite`.
 */
export async function openRegistry(options: { dataDir: string; env: NodeJS.ProcessEnv; url?: string }): Promise<Registry> {
  const url = options.url ?? options.env.TARIFF_REGISTRY;
  if (url && /^postgres(ql)?:\/\//.test(url)) throw errors.usage('the PostgreSQL registry is not available in this version; use a SQLite file');
  const path = url ? url.replace(/^sqlite:/, '') : join(options.dataDir, 'registry.sqlite');
  await mkdir(dirname(path), { recursive: true });
  return new SqliteRegistry(path);
}
