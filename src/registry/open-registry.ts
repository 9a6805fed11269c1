import { chmod, mkdir, open, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { StatusRules } from '../barcodes/status-rules.ts';
import { accountRules } from './rules/accounts.ts';
import { auditRules } from './rules/audit.ts';
import { moderationRules } from './rules/barcode-moderation.ts';
import { counterRules } from './rules/counters.ts';
import { keyRules } from './rules/keys.ts';
import { purgeRules } from './rules/purge-rules.ts';
import type { Registry } from './registry.ts';
import { isPostgresUrl, registryPath } from './registry-path.ts';
import { migrate } from './schema.ts';
import { signUpRules } from './rules/sign-ups.ts';
import { SqliteStore } from './sqlite/sqlite-store.ts';
import type { Store } from './store.ts';
import { submissionRules } from './rules/submissions.ts';
import { webAccessRules } from './rules/web-access.ts';
import { markDataDirFormat } from '../config/data-dir-format.ts';
import { builderVersion } from '../util/builder-version.ts';

/**
 * The registry over a migrated store: the rules, written once, and the store's own authentication.
 * `statusRules` (the moderation settings) are bound here, once: every recomputation of a barcode's
 * status uses them, whichever command or page caused it.
 */
export function createRegistry(store: Store, statusRules: StatusRules): Registry {
  return {
    ...accountRules(store, statusRules),
    ...keyRules(store),
    ...counterRules(store),
    ...submissionRules(store, statusRules),
    ...moderationRules(store, statusRules),
    ...webAccessRules(store),
    ...signUpRules(store, statusRules),
    ...auditRules(store),
    ...purgeRules(store),
    authenticate: store.authenticate,
    poolUse: () => store.poolUse(),
    close: () => store.close(),
  };
}

/**
 * The registry in a SQLite file, created (0600) and migrated if needed. A long-running service
 * checkpoints the file's log in the background (sqlite-store.ts).
 */
export async function openSqliteRegistry(path: string, options: { rules: StatusRules; longRunning?: boolean }): Promise<Registry> {
  await privateFile(path);
  return migratedRegistry(new SqliteStore(path, { checkpointInBackground: options.longRunning }), options.rules);
}

/** The registry on PostgreSQL (`?schema=name` isolates it in a schema), migrated if needed. */
export async function openPgRegistry(url: string, options: { rules: StatusRules; poolSize?: number }): Promise<Registry> {
  // Loaded only for PostgreSQL: most installations never need the driver, and every command would load it.
  const { PgStore } = await import('./postgres/pg-store.ts');
  return migratedRegistry(await PgStore.open(url, options), options.rules);
}

/** The registry over a store once migrated: a migration that fails closes the store (no file, connection or timer left open). */
async function migratedRegistry(store: Store, rules: StatusRules): Promise<Registry> {
  try {
    await migrate(store);
  } catch (error) {
    await store.close();
    throw error;
  }
  return createRegistry(store, rules);
}

/**
 * Opens the registry a URL names (setting `registry`, env TARIFF_REGISTRY): `postgres://…`
 * (optionally `?schema=name`) for PostgreSQL, a SQLite file path or `sqlite:<path>`, or by
 * default `<data-dir>/registry.sqlite`.
 */
export async function openRegistry(options: {
  dataDir: string;
  /** The moderation rules (loadRules(settings)): required, so no caller recomputes with defaults by forgetting them. */
  rules: StatusRules;
  url?: string;
  poolSize?: number;
  longRunning?: boolean;
}): Promise<Registry> {
  const { url } = options;
  if (isPostgresUrl(url)) return openPgRegistry(url, { rules: options.rules, poolSize: options.poolSize });
  const registry = await openSqliteRegistry(registryPath(options), { rules: options.rules, longRunning: options.longRunning });
  // The embedded registry in the data dir is its first write for the commands that hold no
  // writers' lock (accounts, serve); a registry elsewhere (TARIFF_REGISTRY) writes nothing there.
  if (!url) await markDataDirFormat(options.dataDir, `tariff ${builderVersion()}`);
  return registry;
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
