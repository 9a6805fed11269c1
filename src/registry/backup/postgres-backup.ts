import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, writeFile } from 'node:fs/promises';
import pg from 'pg';
import { errors } from '../../errors.ts';
import { machineFaultError } from '../../util/machine-fault.ts';
import { COUNTED_TABLES } from './backup-record.ts';
import { workDigest } from './work-digest.ts';

/**
 * A registry URL as PostgreSQL's tools take it: the connection without its password (which goes in
 * their environment, never in an argument `ps` shows), the password, and the schema `?schema=` names.
 */
export function pgTarget(url: string): { connection: string; password: string | null; schema: string | null } {
  const parsed = new URL(url);
  const schema = parsed.searchParams.get('schema');
  parsed.searchParams.delete('schema');
  const password = parsed.password ? decodeURIComponent(parsed.password) : null;
  parsed.password = '';
  return { connection: parsed.toString(), password, schema };
}

/** util-linux's setpriv, where the system has it (Debian's is essential). */
const SETPRIV = ['/usr/bin/setpriv', '/bin/setpriv'].find((path) => existsSync(path)) ?? null;

/** What PostgreSQL's tools say when the server went away or cannot be reached (libpq's words). */
const SERVER_LOST =
  /server closed the connection unexpectedly|server terminated abnormally|terminating connection due to administrator command|could not connect to server|connection to server .* failed|no connection to the server|the database system is (shutting down|starting up)|Connection refused/i;

/** Runs one of PostgreSQL's tools, the password in its environment (PGPASSWORD); one not on PATH is said with the command to type. */
function run(tool: string, args: string[], byHand: string, password: string | null = null): Promise<void> {
  const env = password === null ? process.env : { ...process.env, PGPASSWORD: password };
  // Under setpriv --pdeathsig where util-linux has it: a command killed outright (SIGKILL) takes
  // its pg_dump with it, which would otherwise go on writing a copy of the registry nobody removes.
  const [command, argv] = SETPRIV ? [SETPRIV, ['--pdeathsig', 'KILL', '--', tool, ...args]] : [tool, args];
  return new Promise((resolve, reject) => {
    execFile(command, argv, { maxBuffer: 16 * 1024 * 1024, env }, (error, _stdout, stderr) => {
      if (!error) return resolve();
      const missing = (error as NodeJS.ErrnoException).code === 'ENOENT' || stderr.includes(`failed to execute ${tool}`);
      if (missing) return reject(errors.pgToolMissing(tool, byHand));
      const said = stderr.trim().split('\n').slice(-3).join('; ') || error.message;
      // The server gone mid-dump (stopped, restarted, unreachable): the machine's fault, said with what to do.
      if (SERVER_LOST.test(stderr) || SERVER_LOST.test(error.message))
        return reject(machineFaultError({ condition: 'database_unreachable', path: null, detail: `${tool}: ${said}` }, 'tariff'));
      reject(errors.pgToolFailed(tool, said));
    });
  });
}

/** What a PostgreSQL registry holds, counted and digested as SQLite's is. */
export interface PostgresContents {
  schemaVersion: number;
  counts: Record<string, number>;
  fingerprint: string;
}

/**
 * The registry dumped in PostgreSQL's custom format (compressed) into `file`, and what that dump
 * holds: one transaction exports its snapshot, pg_dump reads in it (`--snapshot`), and the same
 * transaction counts and digests the rows: the record describes its dump exactly, however the
 * service writes meanwhile.
 */
export async function dumpPostgres(url: string, file: string): Promise<PostgresContents> {
  // Made empty and 0600 first: pg_dump truncates a file there and keeps its mode (it holds every account).
  await writeFile(file, '', { mode: 0o600 });
  await chmod(file, 0o600);
  const { connection, password, schema } = pgTarget(url);
  return withClient(url, async (client) => {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const snapshot = (await client.query<{ id: string }>('SELECT pg_export_snapshot() AS id')).rows[0]!.id;
    const args = [
      '--format=custom',
      '--no-owner',
      `--snapshot=${snapshot}`,
      `--file=${file}`,
      ...(schema ? [`--schema=${schema}`] : []),
      `--dbname=${connection}`,
    ];
    await run('pg_dump', args, `pg_dump --format=custom --no-owner --file=${file} --dbname="$TARIFF_REGISTRY"`, password);
    // The record's digest is its dump's: read in the snapshot pg_dump read.
    const contents = await inspectIn(client, schema, true);
    await client.query('COMMIT');
    return contents;
  });
}

/** Checks that `file` is an archive pg_restore reads (its table of contents), without restoring it. */
export function checkPostgresDump(file: string): Promise<void> {
  return run('pg_restore', ['--list', file], `pg_restore --list ${file}`);
}

/** Restores a dump over the registry: what it holds is dropped and created again (`--clean --if-exists`). */
export function restorePostgres(url: string, file: string): Promise<void> {
  const { connection, password } = pgTarget(url);
  const args = ['--no-owner', '--clean', '--if-exists', '--single-transaction', `--dbname=${connection}`, file];
  return run(
    'pg_restore',
    args,
    `pg_restore --no-owner --clean --if-exists --single-transaction --dbname="$TARIFF_REGISTRY" ${file}`,
    password,
  );
}

/**
 * What a PostgreSQL registry holds, in one snapshot (a table not there yet counts 0); its content
 * digest (every row read) only when asked, else `fingerprint` is ''.
 */
export function inspectPostgres(url: string, { digest = false } = {}): Promise<PostgresContents> {
  return withClient(url, async (client) => {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const contents = await inspectIn(client, pgTarget(url).schema, digest);
    await client.query('COMMIT');
    return contents;
  });
}

/**
 * A dump restored into a scratch database (`tariff_check_<time>`, beside the registry's, on the
 * same server: the role needs CREATEDB), what it holds counted, the database dropped. Never into
 * the registry's own database: the dump names its tables by schema, and would replace them.
 */
export function countsOfDump(url: string, file: string): Promise<Record<string, number>> {
  const name = `tariff_check_${Date.now()}`;
  const scratch = new URL(url);
  scratch.pathname = `/${name}`;
  return withClient(url, async (client) => {
    await client.query(`CREATE DATABASE ${name}`).catch((error: Error) => {
      throw errors.pgToolFailed(
        'CREATE DATABASE',
        `${error.message}: --check restores the dump into a scratch database (the role needs CREATEDB)`,
      );
    });
    try {
      await restorePostgres(scratch.toString(), file);
      return (await inspectPostgres(scratch.toString())).counts;
    } finally {
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
    }
  });
}

/** A client of the registry's database (its `?schema=` is the caller's to use), ended whatever `use` does. */
async function withClient<T>(url: string, use: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url.replace(/[?&]schema=[^&]*/, '') });
  // A connection lost while idle (pg_dump running in its snapshot) is emitted as an event, which
  // unheard would end the process with a stack: heard here, it fails the query or tool under way,
  // whose error names the fault (machine-fault.ts).
  client.on('error', () => {});
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}

/** The other sessions connected to the registry's database, as pg_stat_activity lists them. */
const OTHER_SESSIONS = 'FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()';

/** Other sessions connected to the registry's database now: a restore under them would fight them for locks. */
export function otherSessions(url: string): Promise<number> {
  return withClient(url, async (client) =>
    Number((await client.query<{ n: string }>(`SELECT count(*) AS n ${OTHER_SESSIONS}`)).rows[0]!.n),
  );
}

/** Ends every other session connected to the registry's database (`--force`): the service's pools reconnect after the restore. */
export async function endOtherSessions(url: string): Promise<void> {
  await withClient(url, (client) => client.query(`SELECT pg_terminate_backend(pid) ${OTHER_SESSIONS}`));
}

/** Rows fetched at a time when digesting a table. */
const DIGEST_BATCH = 5_000;

async function inspectIn(client: pg.Client, schema: string | null, digest: boolean): Promise<PostgresContents> {
  const prefix = schema ? `${client.escapeIdentifier(schema)}.` : '';
  const exists = async (table: string) =>
    (
      await client.query(
        'SELECT 1 FROM information_schema.tables WHERE table_schema = coalesce($1, current_schema()) AND table_name = $2',
        [schema, table],
      )
    ).rowCount! > 0;
  const counts: Record<string, number> = {};
  // Table names from a fixed list, never from input.
  for (const table of COUNTED_TABLES)
    counts[table] = (await exists(table)) ? Number((await client.query(`SELECT count(*) AS v FROM ${prefix}${table}`)).rows[0].v) : 0;
  const schemaVersion = (await exists('schema_migrations'))
    ? Number((await client.query(`SELECT coalesce(max(version), 0) AS v FROM ${prefix}schema_migrations`)).rows[0].v)
    : 0;
  if (!digest) return { schemaVersion, counts, fingerprint: '' };
  const fingerprint = await workDigest(async (table, order) => {
    if (!(await exists(table))) return null;
    // Through a cursor, a batch at a time, in the caller's transaction: half a million votes never held at once.
    const cursor = `tariff_digest_${table}`;
    await client.query(`DECLARE ${cursor} NO SCROLL CURSOR FOR SELECT * FROM ${prefix}${table} ORDER BY ${order}`);
    const first = await client.query<unknown[]>({ text: `FETCH FORWARD ${DIGEST_BATCH} FROM ${cursor}`, rowMode: 'array' });
    async function* rows(): AsyncIterable<unknown[]> {
      for (let batch = first; batch.rows.length > 0;) {
        yield* batch.rows;
        if (batch.rows.length < DIGEST_BATCH) break;
        batch = await client.query<unknown[]>({ text: `FETCH FORWARD ${DIGEST_BATCH} FROM ${cursor}`, rowMode: 'array' });
      }
      await client.query(`CLOSE ${cursor}`);
    }
    return { columns: first.fields.map((field) => field.name), rows: rows() };
  });
  return { schemaVersion, counts, fingerprint };
}
