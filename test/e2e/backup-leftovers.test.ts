import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { SCRATCH_FOLDER } from '../../src/registry/backup/backup-scratch.ts';
import { TEST_BACKUP_RECIPIENT, testBackupIdentity } from '../helpers/backup-key.ts';
import { privatePostgres, type PrivatePostgres } from '../helpers/private-postgres.ts';
import { CLI, REPO, runCli } from '../helpers/run-cli.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import { waitFor } from '../helpers/wait-for.ts';

// A backup copies the registry in the clear before it encrypts it: killed at any moment, that copy
// must not outlive the next backup, and no file but the live registry ever holds an address.
const clusters: PrivatePostgres[] = [];
afterEach(() => {
  for (const cluster of clusters.splice(0)) cluster.close();
});

/** Enough accounts that a backup takes a while: every moment of it can be caught. */
const ACCOUNTS = 150_000;
const MARK = '@leftover.example.it';

/** What a copy of a registry in the clear starts with: SQLite's file, pg_dump's archive, gzip. */
const CLEAR_COPY = [Buffer.from('SQLite format 3'), Buffer.from('PGDMP'), Buffer.from([0x1f, 0x8b])];

/** Every file under `dirs` but the live registry's that holds an address or is a copy of a registry in the clear. */
function exposed(dirs: string[], live: string[]): string[] {
  const found: string[] = [];
  const visit = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) visit(path);
      else if (entry.isFile() && !live.includes(path)) {
        const bytes = readFileSync(path);
        if (bytes.includes(Buffer.from(MARK)) || CLEAR_COPY.some((magic) => bytes.subarray(0, magic.length).equals(magic)))
          found.push(path);
      }
    }
  };
  for (const dir of dirs) if (existsSync(dir)) visit(dir);
  return found;
}

/** The moments a backup is killed at, each told by what its scratch folder holds. */
const MOMENTS: { name: string; reached: (folder: string) => boolean }[] = [
  { name: 'its scratch folder made', reached: () => true },
  { name: 'its copy begun', reached: (folder) => size(join(folder, 'registry.copy')) > 0 },
  { name: 'its copy well under way', reached: (folder) => size(join(folder, 'registry.copy')) > 256 * 1024 },
];

const size = (path: string): number => {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
};

/** Starts `tariff registry backup` and SIGKILLs it once a run folder of the scratch folder shows `reached`. */
async function killedBackup(dataDir: string, env: Record<string, string>, reached: (folder: string) => boolean): Promise<boolean> {
  const root = join(dataDir, SCRATCH_FOLDER);
  const child = spawn(process.execPath, [CLI, 'registry', 'backup', '--data-dir', dataDir], {
    cwd: REPO,
    env: { ...process.env, ...env },
    stdio: 'ignore',
  });
  const ended = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let exited = false;
  void ended.then(() => (exited = true));
  let caught = false;
  // Polled between turns of the event loop, not on a timer: a moment lasts milliseconds. Bounded by the run's own end.
  while (!exited && !caught) {
    const runs = existsSync(root) ? readdirSync(root).filter((name) => name.startsWith('run-')) : [];
    caught = runs.some((name) => reached(join(root, name)));
    if (caught) child.kill('SIGKILL');
    else await new Promise((resolve) => setImmediate(resolve));
  }
  await ended;
  return caught;
}

/** pg_dump processes writing into `dataDir` (a killed backup's child, which ends on its own once its snapshot is gone). */
function pgDumpsInto(dataDir: string): boolean {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .some((pid) => {
      try {
        const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
        return args[0]?.endsWith('pg_dump') === true && args.some((arg) => arg.includes(dataDir));
      } catch {
        return false;
      }
    });
}

async function fillPostgres(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query(
    `INSERT INTO accounts (email, type, submit_limit, created_at, vetted_at)
     SELECT 'a' || n || $1, 'User', 100, '2026-11-01T00:00:00Z', NULL FROM generate_series(1, $2) AS n`,
    [MARK, ACCOUNTS],
  );
  await client.end();
}

async function scenario(registry: string | undefined, fill: (dataDir: string) => Promise<void>): Promise<void> {
  const engine = registry ? 'PostgreSQL' : 'SQLite';
  const dataDir = await tempDir();
  const bucket = join(await tempDir(), 'bucket');
  const env: Record<string, string> = {
    TARIFF_BUCKET: bucket,
    TARIFF_BACKUP_RECIPIENTS: TEST_BACKUP_RECIPIENT,
    TARIFF_BACKUP_IDENTITY: testBackupIdentity(await tempDir()),
    ...(registry ? { TARIFF_REGISTRY: registry } : {}),
  };
  const cli = (args: string[]) => runCli([...args, '--data-dir', dataDir], { env });
  expect((await cli(['accounts', 'create', `first${MARK}`, '--type', 'User'])).status).toBe(0);
  await fill(dataDir);
  const live = registry ? [] : ['', '-wal', '-shm'].map((suffix) => join(dataDir, `registry.sqlite${suffix}`));
  for (const moment of MOMENTS) {
    expect(await killedBackup(dataDir, env, moment.reached), `${engine}: the backup reached "${moment.name}"`).toBe(true);
    // Its pg_dump ends with it (a parent-death signal), a moment after: waited for, never outliving it.
    await waitFor(() => !pgDumpsInto(dataDir), 'the killed backup’s pg_dump to end', 10_000);
    const next = await cli(['registry', 'backup']);
    expect(next.status, next.stderr).toBe(0);
    expect(next.stderr, `${engine}, killed at "${moment.name}"`).toContain('removed what a killed backup or restore left');
    expect(readdirSync(join(dataDir, SCRATCH_FOLDER)), `${engine}, killed at "${moment.name}": its folder`).toEqual([]);
    const found = exposed([dataDir, bucket], live).map((path) => relative(dataDir, path));
    expect(found, `${engine}, killed at "${moment.name}": files holding an address`).toEqual([]);
  }
  expect(statSync(join(dataDir, SCRATCH_FOLDER)).mode & 0o777).toBe(0o700);
  // A backup after a whole one has nothing to remove, and says nothing of it.
  expect((await cli(['registry', 'backup'])).stderr).toBe('');
}

describe('a backup killed at any moment leaves no copy of the registry once the next one ran', () => {
  it('on SQLite', async () => {
    await scenario(undefined, async (dataDir) => {
      const db = new Database(join(dataDir, 'registry.sqlite'));
      const insert = db.prepare(
        "INSERT INTO accounts (email, type, submit_limit, created_at, vetted_at) VALUES (?, 'User', 100, '2026-11-01T00:00:00Z', NULL)",
      );
      db.transaction(() => {
        for (let n = 0; n < ACCOUNTS; n += 1) insert.run(`a${n}${MARK}`);
      })();
      db.close();
    });
  });

  it('on PostgreSQL, its pg_dump ended with it', async (context) => {
    const cluster = await privatePostgres();
    if (!cluster) return context.skip('no PostgreSQL cluster of its own can be made here (needs root and PostgreSQL)');
    clusters.push(cluster);
    await scenario(cluster.url, () => fillPostgres(cluster.url));
  });

  it('on PostgreSQL stopped mid-backup: a named fault, exit 1, no stack, and no copy left', async (context) => {
    const cluster = await privatePostgres();
    if (!cluster) return context.skip('no PostgreSQL cluster of its own can be made here (needs root and PostgreSQL)');
    clusters.push(cluster);
    const dataDir = await tempDir();
    const env: Record<string, string> = {
      TARIFF_BUCKET: join(await tempDir(), 'bucket'),
      TARIFF_BACKUP_RECIPIENTS: TEST_BACKUP_RECIPIENT,
      TARIFF_REGISTRY: cluster.url,
    };
    expect((await runCli(['accounts', 'create', `first${MARK}`, '--type', 'User', '--data-dir', dataDir], { env })).status).toBe(0);
    await fillPostgres(cluster.url);
    const root = join(dataDir, SCRATCH_FOLDER);
    let stderr = '';
    const child = spawn(process.execPath, [CLI, 'registry', 'backup', '--data-dir', dataDir], {
      cwd: REPO,
      env: { ...process.env, ...env },
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const status = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    // Stopped once pg_dump writes: the backup's session and pg_dump's are both cut.
    await waitFor(
      () => existsSync(root) && readdirSync(root).some((name) => name.startsWith('run-') && size(join(root, name, 'registry.copy')) > 0),
      'the backup to begin its copy',
    );
    cluster.stop();
    expect(await status).toBe(1);
    expect(stderr).toMatch(/PostgreSQL|pg_dump/);
    expect(stderr).toContain('cannot be reached or is stopping');
    expect(stderr).not.toMatch(/Unhandled|node:events|\n\s+at |internal error|a bug/);
    expect(readdirSync(root)).toEqual([]);
  });

  it('on PostgreSQL, pg_dump cut off by the server (its own words, whatever lines come last): the same named fault', async (context) => {
    const cluster = await privatePostgres();
    if (!cluster) return context.skip('no PostgreSQL cluster of its own can be made here (needs root and PostgreSQL)');
    clusters.push(cluster);
    const tools = await tempDir();
    // pg_dump as it fails when the server goes away mid-table: the cause on its first lines, a COPY on its last.
    writeFileSync(
      join(tools, 'pg_dump'),
      [
        '#!/bin/sh',
        'echo \'pg_dump: error: Dumping the contents of table "accounts" failed: PQgetResult() failed.\' >&2',
        "echo 'pg_dump: detail: Error message from server: server closed the connection unexpectedly' >&2",
        "printf '\\tThis probably means the server terminated abnormally\\n\\tbefore or while processing the request.\\n' >&2",
        "echo 'pg_dump: detail: Command was: COPY public.accounts (id, email) TO stdout;' >&2",
        'exit 1',
        '',
      ].join('\n'),
      { mode: 0o755 },
    );
    const dataDir = await tempDir();
    const env = {
      TARIFF_BUCKET: join(await tempDir(), 'bucket'),
      TARIFF_BACKUP_RECIPIENTS: TEST_BACKUP_RECIPIENT,
      TARIFF_REGISTRY: cluster.url,
      PATH: `${tools}:${process.env.PATH}`,
    };
    expect((await runCli(['accounts', 'create', `first${MARK}`, '--type', 'User', '--data-dir', dataDir], { env })).status).toBe(0);
    const backup = await runCli(['registry', 'backup', '--data-dir', dataDir], { env, process: true });
    expect(backup.status).toBe(1);
    expect(backup.stderr).toContain('pg_dump: ');
    expect(backup.stderr).toContain('cannot be reached or is stopping');
    expect(backup.stderr).not.toMatch(/pg_tool_failed|Check that TARIFF_REGISTRY names the database/);
  });
});
