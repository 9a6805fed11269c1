import { execFile } from 'node:child_process';
import { chmod, writeFile } from 'node:fs/promises';
import pg from 'pg';
import { errors } from '../../errors.ts';
import { COUNTED_TABLES, fingerprintOf } from './backup-record.ts';

/** A registry URL as PostgreSQL's tools take it: the connection, and the schema `?schema=` names (else the default one). */
export function pgTarget(url: string): { connection: string; schema: string | null } {
  const parsed = new URL(url);
  const schema = parsed.searchParams.get('schema');
  parsed.searchParams.delete('schema');
  return { connection: parsed.toString(), schema };
}

/** Runs one of PostgreSQL's tools; one not on PATH is said with the command to run by hand. */
function run(tool: string, args: string[], byHand: string): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(tool, args, { maxBuffer: 16 * 1024 * 1024 }, (error, _stdout, stderr) => {
      if (!error) return resolve();
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return reject(errors.pgToolMissing(tool, byHand));
      reject(errors.pgToolFailed(tool, stderr.trim().split('\n').slice(-3).join('; ') || error.message));
    });
  });
}

/** The registry dumped in PostgreSQL's custom format (compressed) into `file`: pg_dump reads in one snapshot while the service writes. */
export async function dumpPostgres(url: string, file: string): Promise<void> {
  // Made empty and 0600 first: pg_dump truncates a file there and keeps its mode (it holds every account).
  await writeFile(file, '', { mode: 0o600 });
  await chmod(file, 0o600);
  const { connection, schema } = pgTarget(url);
  const args = ['--format=custom', '--no-owner', `--file=${file}`, ...(schema ? [`--schema=${schema}`] : []), `--dbname=${connection}`];
  return run(
    'pg_dump',
    args,
    `pg_dump ${args.map((arg) => (arg.startsWith('--dbname=') ? '--dbname="$TARIFF_REGISTRY"' : arg)).join(' ')}`,
  );
}

/** Checks that `file` is an archive pg_restore reads (its table of contents), without restoring it. */
export function checkPostgresDump(file: string): Promise<void> {
  return run('pg_restore', ['--list', file], `pg_restore --list ${file}`);
}

/** Restores a dump over the registry: what it holds is dropped and created again (`--clean --if-exists`). */
export function restorePostgres(url: string, file: string): Promise<void> {
  const { connection } = pgTarget(url);
  const args = ['--no-owner', '--clean', '--if-exists', '--single-transaction', `--dbname=${connection}`, file];
  return run('pg_restore', args, `pg_restore --no-owner --clean --if-exists --single-transaction --dbname="$TARIFF_REGISTRY" ${file}`);
}

/** What a PostgreSQL registry holds, as SQLite's is counted (a table not there yet counts 0). */
export async function inspectPostgres(
  url: string,
): Promise<{ schemaVersion: number; counts: Record<string, number>; fingerprint: string }> {
  const { connection, schema } = pgTarget(url);
  const client = new pg.Client({ connectionString: connection });
  await client.connect();
  try {
    const prefix = schema ? `${client.escapeIdentifier(schema)}.` : '';
    const value = async (sql: string): Promise<number | null> => {
      try {
        const row = (await client.query<{ v: string | number | null }>(sql)).rows[0];
        return row?.v === null || row?.v === undefined ? null : Number(row.v);
      } catch (error) {
        // A table (or schema) not created yet: nothing in it.
        if ((error as { code?: string }).code === '42P01' || (error as { code?: string }).code === '3F000') return null;
        throw error;
      }
    };
    const counts: Record<string, number> = {};
    // Table names from a fixed list, never from input.
    for (const table of COUNTED_TABLES) counts[table] = (await value(`SELECT count(*) AS v FROM ${prefix}${table}`)) ?? 0;
    const schemaVersion = (await value(`SELECT max(version) AS v FROM ${prefix}schema_migrations`)) ?? 0;
    const newestAudit = await value(`SELECT max(id) AS v FROM ${prefix}audit_log`);
    return { schemaVersion, counts, fingerprint: fingerprintOf(counts, newestAudit === null ? null : String(newestAudit)) };
  } finally {
    await client.end();
  }
}
