import Database from 'better-sqlite3';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_RULES } from '../../src/barcodes/load-rules.ts';
import { gs1CheckDigit } from '../../src/gs1/gtin.ts';
import { inspectSqlite, snapshotSqlite } from '../../src/registry/backup/sqlite-backup.ts';
import { openSqliteRegistry } from '../../src/registry/open-registry.ts';
import { TEST_BACKUP_RECIPIENT, testBackupIdentity } from '../helpers/backup-key.ts';
import { REPO, runCli } from '../helpers/run-cli.ts';
import { serveInProcess } from '../helpers/serve-in-process.ts';
import type { RunningServe } from '../helpers/serve-process.ts';
import { privatePostgres } from '../helpers/private-postgres.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const SAMPLE = join(REPO, 'fixtures/sample/tariff');
const gtin = (body: string) => body + gs1CheckDigit(body);
const running: RunningServe[] = [];
afterEach(async () => {
  for (const service of running.splice(0)) await service.stop();
});

/** Backups encrypted for the test key; the identity that opens them in a file of its own (off the machine, as it should be). */
const sealed = async () => ({
  TARIFF_BACKUP_RECIPIENTS: TEST_BACKUP_RECIPIENT,
  TARIFF_BACKUP_IDENTITY: testBackupIdentity(await tempDir()),
});

/** A data dir whose bucket lies elsewhere (it outlives the machine), backups encrypted. */
async function machine(bucket: string) {
  const dataDir = await tempDir();
  const env = { TARIFF_BUCKET: bucket, ...(await sealed()) };
  const cli = async (args: string[]) => runCli([...args, '--data-dir', dataDir], { env });
  return { dataDir, env, cli };
}

async function serve(dataDir: string, env: Record<string, string>) {
  const service = await serveInProcess(dataDir, env);
  running.push(service);
  return service.url;
}

const get = (url: string, path: string, key: string) => fetch(`${url}${path}`, { headers: { authorization: `Bearer ${key}` } });

describe('the registry lost with its machine, and restored from a backup', () => {
  it('a backup taken while at least 1,000 requests run restores every key, quota, submission, status and log entry', async () => {
    const bucket = join(await tempDir(), 'bucket');
    const first = await machine(bucket);
    const out = join(first.dataDir, 'build');
    expect((await first.cli(['build', '--source', SAMPLE, '--date', '2026-11-22', '--out', out])).status).toBe(0);
    expect((await first.cli(['publish', out])).status).toBe(0);

    // People's work: accounts, keys (one revoked), submissions and a vote, a moderation decision,
    // a blocked point of sale, a pending sign-up.
    const keys: Record<string, string> = {};
    for (const [email, type] of [
      ['uno@example.it', 'User'],
      ['due@example.it', 'User'],
      ['cassa@example.it', 'Integration'],
    ] as const) {
      expect((await first.cli(['accounts', 'create', email, '--type', type])).status).toBe(0);
      keys[email] = JSON.parse((await first.cli(['keys', 'create', email, '--json'])).stdout).key;
    }
    const revoked = JSON.parse((await first.cli(['keys', 'create', 'uno@example.it', '--json'])).stdout);
    expect((await first.cli(['keys', 'revoke', 'uno@example.it', revoked.prefix])).status).toBe(0);
    const url = await serve(first.dataDir, first.env);
    const submit = (key: string, items: unknown[]) =>
      fetch(`${url}/v1/barcodes`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ items }),
      });
    const voted = gtin('800100100101');
    expect((await submit(keys['uno@example.it']!, [{ barcode: voted, admCode: 1001 }])).status).toBe(200);
    expect((await submit(keys['due@example.it']!, [{ barcode: voted, admCode: 1001 }])).status).toBe(200);
    const point = { barcode: gtin('800100100102'), admCode: 1002, contributorRef: 'shop-9' };
    expect((await submit(keys['cassa@example.it']!, [point])).status).toBe(200);
    expect((await first.cli(['barcodes', 'approve', gtin('800100100103'), '--adm-code', '1001'])).status).toBe(0);
    expect((await first.cli(['contributors', 'block', 'cassa@example.it', 'shop-9'])).status).toBe(0);
    const registry = await openSqliteRegistry(join(first.dataDir, 'registry.sqlite'), { rules: DEFAULT_RULES });
    const signUp = { type: 'User' as const, organisation: 'Tabacchi Tre', rulesVersion: '1', tokenHash: 'c'.repeat(64) };
    await registry.createSignUp({ ...signUp, email: 'tre@example.it', expiresAt: new Date(Date.now() + 3_600_000) }, new Date());
    await registry.close();

    // A few reads of each key, then what the registry holds before the load.
    for (const key of Object.values(keys)) for (let i = 0; i < 3; i += 1) expect((await get(url, '/v1/me', key)).status).toBe(200);
    const before = {
      accounts: (await first.cli(['accounts', 'list', '--json'])).stdout,
      show: (await first.cli(['barcodes', 'show', voted, '--json'])).stdout,
      point: (await first.cli(['barcodes', 'show', point.barcode, '--json'])).stdout,
      approved: (await first.cli(['barcodes', 'show', gtin('800100100103'), '--json'])).stdout,
    };

    // The backup, taken while requests run (one in five a submission, a write; the others /healthz):
    // they go on until 200 more have been sent after the backup ended, at least 1,000, at most 20,000.
    let sent = 0;
    let stopAt = 20_000;
    const load = Promise.all(
      Array.from({ length: 16 }, async () => {
        while (sent < stopAt) {
          const n = ++sent;
          const answer =
            n % 5 === 0
              ? await submit(n % 10 === 0 ? keys['uno@example.it']! : keys['due@example.it']!, [
                  { barcode: gtin(`80010020${String(n).padStart(4, '0')}`), admCode: 1001 },
                ])
              : await fetch(`${url}/healthz`);
          await answer.arrayBuffer();
        }
      }),
    );
    await new Promise<void>((resolve) => {
      const started = setInterval(() => sent >= 200 && (clearInterval(started), resolve()), 5);
    });
    const backup = await first.cli(['registry', 'backup', '--json']);
    expect(backup.status, backup.stderr).toBe(0);
    const atBackup = sent;
    stopAt = Math.max(1_000, atBackup + 200);
    await load;
    expect(atBackup, 'the backup was taken while the requests ran').toBeLessThan(stopAt);
    const record = JSON.parse(backup.stdout).record;

    // What the registry held then, read from the backup file itself: no address in its bytes, opened by Debian's age and the identity.
    const stored = readFileSync(join(bucket, 'backups/registry', record.file));
    expect(record.file).toMatch(/\.sqlite\.gz\.age$/);
    expect(stored.includes(Buffer.from('@example.it')), 'an e-mail address in the stored backup').toBe(false);
    const copy = join(await tempDir(), 'copy.sqlite');
    writeFileSync(
      copy,
      gunzipSync(execFileSync('age', ['-d', '-i', first.env.TARIFF_BACKUP_IDENTITY, join(bucket, 'backups/registry', record.file)])),
    );
    const db = new Database(copy, { readonly: true });
    const reads = new Map(
      (
        db
          .prepare("SELECT a.email, c.used FROM usage_counters c JOIN accounts a ON a.id = c.account_id WHERE c.counter = 'read'")
          .all() as { email: string; used: number }[]
      ).map((row) => [row.email, row.used]),
    );
    db.close();
    expect([...reads.values()]).toEqual([3, 3, 3]);

    // The machine is lost: its data dir with it. The bucket remains.
    for (const service of running.splice(0)) await service.stop();
    rmSync(first.dataDir, { recursive: true, force: true });

    const second = await machine(bucket);
    const restored = await second.cli(['registry', 'restore', 'latest']);
    expect(restored.status, restored.stderr).toBe(0);
    expect(restored.stdout).toContain(`3 accounts, 4 keys, ${record.counts.barcodes} submissions`);
    expect(record.counts.barcodes).toBeGreaterThan(3);
    expect((await second.cli(['accounts', 'list', '--json'])).stdout).toBe(before.accounts);
    expect((await second.cli(['barcodes', 'show', voted, '--json'])).stdout).toBe(before.show);
    expect((await second.cli(['barcodes', 'show', point.barcode, '--json'])).stdout).toBe(before.point);
    // The operator's decision with its log entry, the blocked point of sale, the pending sign-up.
    expect((await second.cli(['barcodes', 'show', gtin('800100100103'), '--json'])).stdout).toBe(before.approved);
    expect(record.counts).toMatchObject({ blocked_contributors: 1, sign_ups: 1, accounts: 3, api_keys: 4 });
    expect(record.counts.audit_log).toBeGreaterThan(0);
    const again = await serve(second.dataDir, second.env);
    for (const [email, key] of Object.entries(keys)) {
      const me = await get(again, '/v1/me', key);
      expect(me.status, email).toBe(200);
      const body = await me.json();
      expect(body.email).toBe(email);
      // The reads of the day as the backup counted them, and this request.
      expect(body.limits.read.used, email).toBe((reads.get(email) ?? 0) + 1);
    }
    expect((await get(again, '/v1/me', revoked.key)).status).toBe(401);
  });

  it('refuses to overwrite a registry that changed since the backup, unless forced, keeping the one it replaces encrypted', async () => {
    const bucket = join(await tempDir(), 'bucket');
    const { dataDir, cli, env } = await machine(bucket);
    expect((await cli(['accounts', 'create', 'uno@example.it', '--type', 'User'])).status).toBe(0);
    expect((await cli(['registry', 'backup', '--quiet'])).stdout).toBe('');
    expect((await cli(['accounts', 'create', 'due@example.it', '--type', 'User'])).status).toBe(0);
    const refused = await cli(['registry', 'restore', 'latest']);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain('changed since the backup (2 accounts');
    expect(JSON.parse((await cli(['accounts', 'list', '--json'])).stdout)).toHaveLength(2);
    const forced = await cli(['registry', 'restore', 'latest', '--force']);
    expect(forced.status, forced.stderr).toBe(0);
    expect(JSON.parse((await cli(['accounts', 'list', '--json'])).stdout)).toHaveLength(1);
    // Encrypted like a backup, its plain files gone.
    const kept = readdirSync(dataDir).filter((name) => name.startsWith('registry.sqlite.replaced-'));
    expect(kept).toEqual([expect.stringMatching(/^registry\.sqlite\.replaced-.*Z\.sqlite\.gz\.age$/)]);
    const opened = join(await tempDir(), 'replaced.sqlite');
    writeFileSync(opened, gunzipSync(execFileSync('age', ['-d', '-i', env.TARIFF_BACKUP_IDENTITY, join(dataDir, kept[0]!)])));
    expect((await inspectSqlite(opened)).counts.accounts).toBe(2);
    // What holds every account is its owner's alone: the replaced copy, the restored registry.
    expect(statSync(join(dataDir, kept[0]!)).mode & 0o777).toBe(0o600);
    expect(statSync(join(dataDir, 'registry.sqlite')).mode & 0o777).toBe(0o600);
  });

  it('writes a backup and its record 0600 in a 0700 folder of a folder bucket, a folder made before included', async () => {
    const bucket = join(await tempDir(), 'bucket');
    const { cli } = await machine(bucket);
    expect((await cli(['accounts', 'create', 'uno@example.it', '--type', 'User'])).status).toBe(0);
    // A folder made before, as older versions did: made private by the next backup.
    mkdirSync(join(bucket, 'backups/registry'), { recursive: true, mode: 0o755 });
    const record = JSON.parse((await cli(['registry', 'backup', '--json'])).stdout).record;
    const mode = (path: string) => statSync(join(bucket, path)).mode & 0o777;
    expect(mode(`backups/registry/${record.file}`)).toBe(0o600);
    expect(mode(`backups/registry/${record.file.replace(/\.sqlite\.gz\.age$/, '.json')}`)).toBe(0o600);
    expect(mode('backups/registry')).toBe(0o700);
  });

  it('restores into a data dir it makes 0700, the registry 0600: a new machine’s copy is its owner’s alone', async () => {
    const bucket = join(await tempDir(), 'bucket');
    const { cli, env } = await machine(bucket);
    expect((await cli(['accounts', 'create', 'uno@example.it', '--type', 'User'])).status).toBe(0);
    expect((await cli(['registry', 'backup'])).status).toBe(0);
    const dataDir = join(await tempDir(), 'new-machine', 'data');
    const restored = await runCli(['registry', 'restore', 'latest', '--data-dir', dataDir], { env });
    expect(restored.status, restored.stderr).toBe(0);
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
    expect(statSync(join(dataDir, 'registry.sqlite')).mode & 0o777).toBe(0o600);
  });

  it('refuses a backup whose bytes are not its record’s, changing nothing', async () => {
    const bucket = join(await tempDir(), 'bucket');
    const { cli } = await machine(bucket);
    expect((await cli(['accounts', 'create', 'uno@example.it', '--type', 'User'])).status).toBe(0);
    const record = JSON.parse((await cli(['registry', 'backup', '--json'])).stdout).record;
    writeFileSync(join(bucket, 'backups/registry', record.file), Buffer.from('not a backup'));
    const fresh = await machine(bucket);
    const refused = await fresh.cli(['registry', 'restore', 'latest']);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain(`its SHA-256 is not the ${record.sha256} its record names`);
    expect(existsSync(join(fresh.dataDir, 'registry.sqlite'))).toBe(false);
    const check = await cli(['registry', 'backup', '--check']);
    expect(check.status).toBe(1);
  });
});

describe('the PostgreSQL registry lost with its cluster, and restored with pg_dump and pg_restore', () => {
  it('a new cluster restored from the bucket’s backup answers every key as before', async (context) => {
    const lost = await privatePostgres();
    if (!lost) return context.skip('no PostgreSQL cluster of its own can be made here (needs root and PostgreSQL)');
    const bucket = join(await tempDir(), 'bucket');
    const dataDir = await tempDir();
    const keys_ = await sealed();
    let env: Record<string, string> = { TARIFF_BUCKET: bucket, TARIFF_REGISTRY: lost.url, ...keys_ };
    const cli = (args: string[]) => runCli([...args, '--data-dir', dataDir], { env });
    const keys: Record<string, string> = {};
    try {
      for (const email of ['uno@example.it', 'due@example.it']) {
        expect((await cli(['accounts', 'create', email, '--type', 'User'])).status).toBe(0);
        keys[email] = JSON.parse((await cli(['keys', 'create', email, '--json'])).stdout).key;
      }
      const revoked = JSON.parse((await cli(['keys', 'create', 'uno@example.it', '--json'])).stdout);
      expect((await cli(['keys', 'revoke', 'uno@example.it', revoked.prefix])).status).toBe(0);
      const before = { accounts: (await cli(['accounts', 'list', '--json'])).stdout };
      const backup = await cli(['registry', 'backup', '--json']);
      expect(backup.status, backup.stderr).toBe(0);
      expect(JSON.parse(backup.stdout).record).toMatchObject({ engine: 'postgres', counts: { accounts: 2, api_keys: 3 } });
      expect(JSON.parse(backup.stdout).record.file).toMatch(/\.pgdump\.age$/);
      expect(
        readFileSync(join(bucket, 'backups/registry', JSON.parse(backup.stdout).record.file)).includes(Buffer.from('@example.it')),
      ).toBe(false);
      expect((await cli(['registry', 'backup', '--check'])).status).toBe(0);

      // The cluster is lost; a new one, empty, takes its place.
      lost.close();
      const fresh = await privatePostgres();
      try {
        env = { TARIFF_BUCKET: bucket, TARIFF_REGISTRY: fresh!.url, ...keys_ };
        const restored = await cli(['registry', 'restore', 'latest']);
        expect(restored.status, restored.stderr).toBe(0);
        expect(restored.stdout).toContain('2 accounts, 3 keys');
        expect(restored.stdout).not.toContain('tariff@');
        expect((await cli(['accounts', 'list', '--json'])).stdout).toBe(before.accounts);
        // Restored again over itself: nothing changed since, nothing refused.
        expect((await cli(['registry', 'restore', 'latest'])).status).toBe(0);
        // Work done since the backup is not thrown away without --force.
        expect((await cli(['accounts', 'create', 'tre@example.it', '--type', 'User'])).status).toBe(0);
        const refused = await cli(['registry', 'restore', 'latest']);
        expect(refused.status).toBe(1);
        expect(refused.stderr).toContain('changed since the backup');
        expect((await cli(['registry', 'restore', 'latest', '--force'])).status).toBe(0);
        expect(readdirSync(dataDir).filter((name) => /^registry-replaced-.*\.pgdump\.age$/.test(name))).toHaveLength(1);
        const url = await serve(dataDir, env);
        for (const [email, key] of Object.entries(keys)) expect((await get(url, '/v1/me', key)).status, email).toBe(200);
        expect((await get(url, '/v1/me', revoked.key)).status).toBe(401);
      } finally {
        for (const service of running.splice(0)) await service.stop();
        fresh?.close();
      }
    } finally {
      lost.close();
    }
  });
});

describe('a backup of a registry being written', () => {
  it('50 rounds: each copy passes integrity_check and holds a commit-consistent state', async () => {
    const dir = await tempDir();
    const path = join(dir, 'registry.sqlite');
    const registry = await openSqliteRegistry(path, { rules: DEFAULT_RULES });
    let writing = true;
    let created = 0;
    const writer = (async () => {
      while (writing) {
        created += 1;
        await registry.createAccount({ email: `a${created}@example.it`, type: 'User' }, new Date());
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    let accounts = 0;
    try {
      for (let round = 0; round < 50; round += 1) {
        const copy = join(dir, `copy-${round}.sqlite`);
        snapshotSqlite(path, copy);
        const contents = await inspectSqlite(copy);
        expect(contents.integrity, `round ${round}`).toBe('ok');
        // Each copy a state the registry committed, never one older than the copy before.
        expect(contents.counts.accounts, `round ${round}`).toBeGreaterThanOrEqual(accounts);
        accounts = contents.counts.accounts!;
        rmSync(copy);
        await new Promise((resolve) => setImmediate(resolve));
      }
    } finally {
      writing = false;
      await writer;
      await registry.close();
    }
    expect(accounts).toBeGreaterThan(0);
  });
});
