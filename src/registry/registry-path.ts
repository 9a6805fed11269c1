import { join } from 'node:path';

/**
 * The SQLite file a registry setting names, or the default one in the data dir. A module of its
 * own: a build asks whether a registry exists without loading the registry (and its engines).
 */
export const registryPath = (options: { dataDir: string; url?: string }) =>
  options.url ? options.url.replace(/^sqlite:/, '') : join(options.dataDir, 'registry.sqlite');

/** Whether a registry setting names PostgreSQL (`postgres://…`, `postgresql://…`) rather than a SQLite file. */
export const isPostgresUrl = (url: string | undefined): url is string => url !== undefined && /^postgres(ql)?:\/\//.test(url);
