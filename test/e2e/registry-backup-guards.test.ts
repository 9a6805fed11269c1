import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { gs1CheckDigit } from '../../src/gs1/gtin.ts';
import { SCHEMA_VERSION } from '../../src/registry/schema.ts';
import { TEST_BACKUP_RECIPIENT, testBackupIdentity } from '../helpers/backup-key.ts';
import { privatePostgres } from '../helpers/private-postgres.ts';
import { REPO, runCli } from '../helpers/run-cli.ts';
import { serveInProcess } from '../helpers/serve-in-process.ts';
import type { RunningServe } from '../helpers/serve-process.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import { describeLocal, itLocal, itS3 } from '../helpers/s3-step.ts';

// What keeps a registry backup from being read by others, or a restore from losing work
// (docs/operations.md, "Losing a machine"): each guard tried as an operator would meet it.
const running: RunningServe[] = [];
afterEach(async () => {
  for (const service of running.splice(0)) await service.stop();
});

async function machine() {
  const dataDir = await tempDir();
  const env: Record<string, string> = {
    TARIFF_BUCKET: join(await tempDir(), 'bucket'),
    TARIFF_BACKUP_RECIPIENTS: TEST_BACKUP_RECIPIENT,
    TARIFF_BACKUP_IDENTITY: testBackupIdentity(await tempDir()),
  };
  const cli = (args: string[], more: Record<string, string> = {}) => runCli([...args, '--data-dir', dataDir], { env: { ...env, ...more } });
  expect((await cli(['accounts', 'create', 'uno@example.it', '--type', 'User'])).status).toBe(0);
  return { dataDir, env, cli };
}

describe('registry backups no one else reads', () => {
  itLocal('are refused without a recipient unless --plaintext, and encrypted for one made by backup-key create', async () => {
    const { cli, env } = await machine();
    const refused = await cli(['registry', 'backup'], { TARIFF_BACKUP_RECIPIENTS: '' });
    expect(refused.status).toBe(2);
    expect(refused.stderr).toContain('No recipient to encrypt the backup for');
    expect(refused.stderr).toContain('--recipient age1');
    expect((await cli(['registry', 'backup', '--plaintext', '--json'], { TARIFF_BACKUP_RECIPIENTS: '' })).status).toBe(0);

    const keyFile = join(await tempDir(), 'backups.age');
    const made = await runCli(['registry', 'backup-key', 'create', keyFile, '--json']);
    expect(made.status, made.stderr).toBe(0);
    const { recipient } = JSON.parse(made.stdout);
    expect(recipient).toMatch(/^age1[a-z0-9]{58}$/);
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    expect((await runCli(['registry', 'backup-key', 'create', keyFile])).status, 'never over a file').toBe(2);
    const backup = await cli(['registry', 'backup', '--recipient', recipient, '--json']);
    expect(backup.status, backup.stderr).toBe(0);
    const file = join(env.TARIFF_BUCKET!, 'backups/registry', JSON.parse(backup.stdout).record.file);
    expect(readFileSync(file).includes(Buffer.from('uno@example.it'))).toBe(false);
    // The test key does not open it; the new one does.
    const wrong = await cli(['registry', 'restore', 'latest', '--force']);
    expect(wrong.status).toBe(1);
    expect(wrong.stderr).toContain('none of its identities opens');
    const opened = await cli(['registry', 'restore', 'latest', '--force', '--identity', keyFile]);
    expect(opened.status, opened.stderr).toBe(0);
  });

  itS3('in an S3 bucket, the stored object holds no address either', async () => {
    const { startS3 } = await import('../helpers/s3-server.ts');
    const { S3Bucket } = await import('../../src/storage/s3-bucket.ts');
    const s3 = await startS3();
    try {
      const { cli } = await machine();
      const backup = await cli(['registry', 'backup', '--to', `s3://${s3.bucket}/backups-test`, '--json'], s3.env);
      expect(backup.status, backup.stderr).toBe(0);
      const stored = await new S3Bucket({ bucket: s3.bucket, prefix: 'backups-test', env: s3.env, pathStyle: true }).get(
        `backups/registry/${JSON.parse(backup.stdout).record.file}`,
      );
      expect(stored!.length).toBeGreaterThan(0);
      expect(stored!.includes(Buffer.from('uno@example.it'))).toBe(false);
      expect(stored!.subarray(0, 21).toString()).toBe('age-encryption.org/v1');
    } finally {
      await s3.close();
    }
  });

  itLocal('without the identity, a restore says what it needs, and changes nothing', async () => {
    const { cli, dataDir } = await machine();
    expect((await cli(['registry', 'backup'])).status).toBe(0);
    const before = readFileSync(join(dataDir, 'registry.sqlite'));
    const refused = await cli(['registry', 'restore', 'latest', '--force'], { TARIFF_BACKUP_IDENTITY: '' });
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain('it is encrypted (age), and no identity was given to open it');
    expect(refused.stderr).toContain('--identity <file> or TARIFF_BACKUP_IDENTITY');
    expect(readFileSync(join(dataDir, 'registry.sqlite')).equals(before)).toBe(true);
  });

  itLocal('never go to the disk they protect: the default bucket in the data dir, or a folder of it, is refused', async () => {
    const { cli, dataDir } = await machine();
    for (const [args, more] of [
      [['registry', 'backup'], { TARIFF_BUCKET: '' }],
      [['registry', 'backup', '--to', join(dataDir, 'backups')], {}],
    ] as const) {
      const refused = await cli([...args], more);
      expect(refused.status, refused.stderr).toBe(2);
      expect(refused.stderr).toContain(`is inside the data dir ${dataDir}`);
      expect(existsSync(join(dataDir, 'bucket', 'backups'))).toBe(false);
    }
  });

  itLocal('are kept 0600 in 0700 folders, records and their generations too; an identity others can read is refused', async () => {
    const { cli, env } = await machine();
    expect((await cli(['registry', 'backup'])).status).toBe(0);
    expect((await cli(['registry', 'backup'])).status).toBe(0);
    const { readdirSync } = await import('node:fs');
    const folder = join(env.TARIFF_BUCKET!, 'backups/registry');
    const modes = (dir: string): [string, number][] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
        const path = join(dir, entry.name);
        const mode = statSync(path).mode & 0o777;
        return entry.isDirectory() ? [[path, mode] as [string, number], ...modes(path)] : [[path, mode] as [string, number]];
      });
    const all = [[folder, statSync(folder).mode & 0o777] as [string, number], ...modes(folder)];
    expect(all.some(([path]) => path.includes('latest.json.gen'))).toBe(true);
    for (const [path, mode] of all) expect(mode, path).toBe(statSync(path).isDirectory() ? 0o700 : 0o600);

    chmodSync(env.TARIFF_BACKUP_IDENTITY!, 0o644);
    const refused = await cli(['registry', 'restore', 'latest', '--force']);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain('readable by others than its owner (mode 0644)');
    expect(refused.stderr).toContain(`chmod 600 ${env.TARIFF_BACKUP_IDENTITY}`);
    chmodSync(env.TARIFF_BACKUP_IDENTITY!, 0o600);
    expect((await cli(['registry', 'restore', 'latest', '--force'])).status).toBe(0);
  });

  itLocal('a record cut short is named as damaged, never a bug', async () => {
    const { cli, env } = await machine();
    expect((await cli(['registry', 'backup'])).status).toBe(0);
    const latest = join(env.TARIFF_BUCKET!, 'backups/registry/latest.json.gen');
    const { readdirSync } = await import('node:fs');
    const newest = join(latest, readdirSync(latest).sort().at(-1)!);
    chmodSync(newest, 0o600);
    writeFileSync(newest, readFileSync(newest).subarray(0, 20));
    for (const args of [
      ['registry', 'restore', 'latest'],
      ['registry', 'backup', '--check'],
    ]) {
      const refused = await cli(args);
      expect(refused.status, args.join(' ')).toBe(1);
      expect(refused.stderr).toContain('not a whole backup record');
      expect(refused.stderr).not.toMatch(/internal error|bug/i);
    }
  });
});

describeLocal('restores that never lose work', () => {
  it('refuse a SQLite registry the service has open, whatever --force says; nothing it answered is lost', async () => {
    const { cli, dataDir, env } = await machine();
    expect((await cli(['registry', 'backup'])).status).toBe(0);
    const service = await serveInProcess(dataDir, env);
    running.push(service);
    const key = JSON.parse((await cli(['keys', 'create', 'uno@example.it', '--json'])).stdout).key;
    expect((await fetch(`${service.url}/v1/me`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(200);
    const refused = await cli(['registry', 'restore', 'latest', '--force']);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain('is in use (another process has it open');
    expect((await fetch(`${service.url}/v1/me`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(200);
    await service.stop();
    running.splice(0);
    // Stopped, the service's key is still there: the refusal changed nothing.
    expect(JSON.parse((await cli(['keys', 'list', 'uno@example.it', '--json'])).stdout)).toHaveLength(1);
    expect((await cli(['registry', 'restore', 'latest', '--force'])).status).toBe(0);
  });

  it('judge work since the backup by content: a vote changed in place, which changes no count, refuses a plain restore', async () => {
    const { cli, dataDir, env } = await machine();
    const out = join(dataDir, 'build');
    expect((await cli(['build', '--source', join(REPO, 'fixtures/sample/tariff'), '--date', '2026-11-22', '--out', out])).status).toBe(0);
    expect((await cli(['publish', out])).status).toBe(0);
    const key = JSON.parse((await cli(['keys', 'create', 'uno@example.it', '--json'])).stdout).key;
    const barcode = `800100100101${gs1CheckDigit('800100100101')}`.slice(-13);
    const vote = async (admCode: number) => {
      const service = await serveInProcess(dataDir, env);
      try {
        const answer = await fetch(`${service.url}/v1/barcodes`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ items: [{ barcode, admCode }] }),
        });
        expect(answer.status).toBe(200);
      } finally {
        await service.stop();
      }
    };
    await vote(1001);
    expect((await cli(['registry', 'backup'])).status).toBe(0);
    await vote(1002);
    const refused = await cli(['registry', 'restore', 'latest']);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain('changed since the backup');
    // Each vote left its entry in the audit log, as the account and key the command line made did.
    const db = new Database(join(dataDir, 'registry.sqlite'), { readonly: true });
    const actions = (db.prepare('SELECT action FROM audit_log ORDER BY id').all() as { action: string }[]).map((row) => row.action);
    db.close();
    expect(actions).toEqual(['account.create', 'key.create', 'votes.submit', 'votes.submit']);
  });

  it('refuse a backup of a newer schema, and the registry a newer tariff migrated is never opened', async () => {
    const { cli, dataDir } = await machine();
    const db = new Database(join(dataDir, 'registry.sqlite'));
    db.prepare('INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)').run(SCHEMA_VERSION + 1, new Date().toISOString());
    db.close();
    const opened = await cli(['accounts', 'list']);
    expect(opened.status).toBe(1);
    expect(opened.stderr).toContain(`The registry's schema is version ${SCHEMA_VERSION + 1}; this tariff knows up to ${SCHEMA_VERSION}`);
    expect((await cli(['registry', 'backup'])).status).toBe(0);
    const refused = await cli(['registry', 'restore', 'latest', '--force']);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain(`its registry schema is version ${SCHEMA_VERSION + 1}; this tariff knows up to ${SCHEMA_VERSION}`);
  });
});

describeLocal('on PostgreSQL', () => {
  it('pg_dump gets no password in its arguments; a restore under the service’s sessions is refused, then --force ends them', async (context) => {
    const cluster = await privatePostgres();
    if (!cluster) return context.skip('no PostgreSQL cluster of its own can be made here (needs root and PostgreSQL)');
    try {
      // The cluster trusts local connections: the password is there only to be looked for.
      const url = cluster.url.replace('tariff@', 'tariff:s3cret-word@');
      const tools = await tempDir();
      const log = join(tools, 'pg_dump.log');
      const real = execFileSync('sh', ['-c', 'command -v pg_dump'], { encoding: 'utf8' }).trim();
      // pg_dump as ps would show it: its arguments, and whether PGPASSWORD reached it (not its value).
      writeFileSync(
        join(tools, 'pg_dump'),
        `#!/bin/sh\nprintf '%s\\n' "$@" >> ${log}\n[ -n "$PGPASSWORD" ] && echo 'PGPASSWORD set' >> ${log}\nexec ${real} "$@"\n`,
        { mode: 0o755 },
      );
      const dataDir = await tempDir();
      const env = {
        TARIFF_REGISTRY: url,
        TARIFF_BUCKET: join(await tempDir(), 'bucket'),
        TARIFF_BACKUP_RECIPIENTS: TEST_BACKUP_RECIPIENT,
        TARIFF_BACKUP_IDENTITY: testBackupIdentity(await tempDir()),
        PATH: `${tools}:${process.env.PATH}`,
      };
      const cli = (args: string[]) => runCli([...args, '--data-dir', dataDir], { env, process: true });
      expect((await cli(['accounts', 'create', 'uno@example.it', '--type', 'User'])).status).toBe(0);
      // Accounts written the whole time the backup runs: its record must still be its dump's.
      const { default: pg } = await import('pg');
      const writer = new pg.Client({ connectionString: cluster.url });
      await writer.connect();
      let writing = true;
      let written = 0;
      const load = (async () => {
        while (writing) {
          await writer.query(
            "INSERT INTO accounts (email, type, submit_limit, created_at, vetted_at) VALUES ($1, 'User', 100, now()::text, now()::text)",
            [`load${written++}@example.it`],
          );
        }
      })();
      const backup = await cli(['registry', 'backup', '--json']);
      writing = false;
      await load;
      await writer.end();
      expect(backup.status, backup.stderr).toBe(0);
      expect(written, 'accounts written while the backup ran').toBeGreaterThan(0);
      const record = JSON.parse(backup.stdout).record;
      const said = readFileSync(log, 'utf8');
      expect(said).toContain('--snapshot=');
      expect(said).toContain('PGPASSWORD set');
      expect(said).not.toContain('s3cret-word');
      // --check restores the dump into a scratch database and counts there.
      const check = await cli(['registry', 'backup', '--check', '--json']);
      expect(check.status, check.stderr).toBe(0);
      const counted = JSON.parse(check.stdout).counts as Record<string, { backup: number; live: number }>;
      // What the dump holds, restored and counted, is what its record says, table by table.
      for (const [table, rows] of Object.entries(record.counts as Record<string, number>)) expect(counted[table]?.backup, table).toBe(rows);
      expect(counted.accounts!.live).toBe(1 + written);

      const service = await serveInProcess(dataDir, env);
      running.push(service);
      const refused = await cli(['registry', 'restore', 'latest']);
      expect(refused.status).toBe(1);
      expect(refused.stderr).toMatch(/is in use \(\d+ other session\(s\) connected to its database\)/);
      const forced = await cli(['registry', 'restore', 'latest', '--force']);
      expect(forced.status, forced.stderr).toBe(0);
    } finally {
      for (const service of running.splice(0)) await service.stop();
      cluster.close();
    }
    // A cluster of its own, dumped and restored: seconds idle, over a minute with every core busy.
  }, 600_000);
});
