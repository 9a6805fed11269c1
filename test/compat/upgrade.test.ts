import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FORMAT_KEY } from '../../src/storage/bucket-format.ts';
import { readBucketKey } from '../helpers/bucket-folder.ts';
import { installPrevious, RELEASED, released, run } from '../helpers/previous-version.ts';
import { CLI, REPO, type CliResult } from '../helpers/run-cli.ts';
import { waitFor } from '../helpers/wait-for.ts';

// The step an operator takes: a bucket, a data dir (its registry, its snapshots) and a till that
// a released version wrote, taken over by this one in the order docs/operations.md ("Upgrading")
// gives, while a reader of that version still serves from the same bucket. Each released version
// is built from git history and installed from its tarball (test/helpers/previous-version.ts).
// Run by .ci/run as `npm run test:compat`.

const CIGARETTES = join(REPO, 'fixtures/sample/tariff/sigarette-2026-11-01.xml');
const DAY = { SOURCE_DATE_EPOCH: String(Date.parse('2026-11-22T11:00:00Z') / 1000) };

/** Each released version's installed `tariff`, by version. */
const installed = new Map<string, string>();
let work: string;
/** Every service started, stopped after the file whatever happened. */
const services: ChildProcess[] = [];

/** A clean environment for either version: what cron gives, and nothing of the test run's own. */
const env = (extra: Record<string, string> = {}) => ({
  PATH: process.env.PATH!,
  HOME: work,
  NO_COLOR: '1',
  ...(process.env.NODE_EXTRA_CA_CERTS ? { NODE_EXTRA_CA_CERTS: process.env.NODE_EXTRA_CA_CERTS } : {}),
  ...DAY,
  ...extra,
});
/** A command of an installed released version. */
const tariffOf =
  (version: string) =>
  (args: string[], extra: Record<string, string> = {}) =>
    run(installed.get(version)!, args, { cwd: work, env: env(extra) });
const now = (args: string[], extra: Record<string, string> = {}) => run(process.execPath, [CLI, ...args], { cwd: work, env: env(extra) });
const ok = (what: string, result: CliResult) => {
  expect(result.status, `${what}: ${result.stderr}`).toBe(0);
  return result;
};

/** Starts `tariff serve` of either version and returns its address once it listens (its log says so). */
async function serve(command: string[], dataDir: string, extra: string[] = []): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(command[0]!, [...command.slice(1), 'serve', '--host', '127.0.0.1', '--port', '0', '--data-dir', dataDir, ...extra], {
    cwd: work,
    env: env({ TARIFF_MANIFEST_POLL_MS: '100' }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  services.push(child);
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const entry = JSON.parse(line) as { event?: string; url?: string };
      if (entry.event === 'service.listening') resolve(entry.url!);
    });
    child.on('exit', (code) => reject(new Error(`serve exited ${code} before it listened: ${stderr}`)));
  });
  return { url, child };
}

async function stop(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

const served = async (url: string) => ((await (await fetch(`${url}/healthz`)).json()) as { release: string | null }).release;
const tillVersion = (dest: string) => {
  const db = new Database(join(dest, 'dataset.sqlite'), { readonly: true });
  try {
    return (db.prepare("SELECT value FROM meta WHERE key = 'version'").get() as { value: string }).value;
  } finally {
    db.close();
  }
};

/**
 * What a released version (`old`) makes in `dir`: a release in the bucket of `dir`/var (built into
 * `dir`/b1), an account with its key (kept in `dir`/till.key, as a till keeps it), and the sync of
 * a till of either version into `dir`/till.
 */
async function stateOf(old: (args: string[]) => Promise<CliResult>, dir: string) {
  const data = join(dir, 'var');
  const till = join(dir, 'till');
  const keyFile = join(dir, 'till.key');
  ok('old build', await old(['build', '--source', CIGARETTES, '--date', '2026-11-22', '--out', join(dir, 'b1'), '--data-dir', data]));
  ok('old publish', await old(['publish', join(dir, 'b1'), '--data-dir', data]));
  ok('old accounts create', await old(['accounts', 'create', 'cassa@example.it', '--type', 'User', '--data-dir', data]));
  const key = JSON.parse(ok('old keys create', await old(['keys', 'create', 'cassa@example.it', '--json', '--data-dir', data])).stdout).key;
  writeFileSync(keyFile, `${key}\n`);
  chmodSync(keyFile, 0o600);
  const sync = (via: (args: string[]) => Promise<CliResult>, url: string) =>
    via(['sync', '--api', `${url}/v1`, '--format', 'sqlite', '--dest', till, '--key-file', keyFile, '--data-dir', join(dir, 'till-data')]);
  return { data, bucket: join(data, 'bucket'), till, sync };
}

/**
 * The upgraded writer's first publication: a second release of the same tariff (one barcode more,
 * so 20261101.2) built on the one in `dir`/b1 into `dir`/b2, published to `data`'s bucket.
 */
async function publishSecond(dir: string, data: string): Promise<string> {
  const barcodes = join(dir, 'barcodes.csv');
  writeFileSync(barcodes, 'barcode,admCode,kind,units\n8001000000016,1001,pack,1\n');
  const b2 = join(dir, 'b2');
  const built = ['build', '--source', CIGARETTES, '--barcodes', barcodes, '--date', '2026-11-22', '--previous', join(dir, 'b1')];
  ok('new build', await now([...built, '--out', b2, '--data-dir', data]));
  ok('new publish', await now(['publish', b2, '--data-dir', data]));
  return b2;
}

beforeAll(async () => {
  for (const entry of RELEASED) installed.set(entry.version, await installPrevious(entry));
  work = mkdtempSync(join(tmpdir(), 'tariff-upgrade-'));
}, 1_200_000);

afterAll(async () => {
  await Promise.all(services.filter((child) => child.exitCode === null && child.signalCode === null).map(stop));
  rmSync(work, { recursive: true, force: true });
});

describe.each(RELEASED)('released version $version', ({ version }) => {
  it('installs from its tarball', async () => {
    expect(ok('--version', await tariffOf(version)(['--version'])).stdout).toContain(version);
  });
});

describe('the upgrade from 0.1.0 (bucket layout 1)', () => {
  const old = tariffOf(released('0.1.0').version);
  const previous = () => installed.get('0.1.0')!;

  it('takes over its bucket, data dir, registry and till, readers first, an old reader serving the newest release throughout', async () => {
    const { data, bucket, till, sync } = await stateOf(old, work);
    expect(existsSync(join(bucket, FORMAT_KEY))).toBe(false);
    const oldService = await serve([previous()], data);
    ok('old till, old service', await sync(old, oldService.url));
    expect(tillVersion(till)).toBe('20261101.1');

    // 1. The writer's schedule is stopped (nothing to do here: no cron). 2. The readers: this
    // machine's service is upgraded; another machine's reader of the previous version, serving the
    // same bucket, stays.
    await stop(oldService.child);
    const newService = await serve([process.execPath, CLI], data);
    expect(await served(newService.url)).toBe('20261101.1');
    const otherReader = await serve([previous()], join(work, 'reader2'), ['--bucket', bucket]);
    expect(await served(otherReader.url)).toBe('20261101.1');
    // The old till syncs from the new service with the key the old registry issued.
    ok('old till, new service', await sync(old, newService.url));

    // 3. The writer is upgraded: its first publication upgrades the bucket.
    await publishSecond(work, data);
    expect(JSON.parse(readFileSync(join(bucket, FORMAT_KEY), 'utf8'))).toMatchObject({ version: 3 });
    expect(existsSync(join(bucket, 'current.json.gen'))).toBe(true);
    expect(JSON.parse(readFileSync(join(data, 'tariff-data-dir.json'), 'utf8'))).toMatchObject({ format: 'tariff-data-dir', version: 1 });

    // Every reader serves the newest release: the new one, and the old one through the plain copy.
    await waitFor(async () => (await served(newService.url)) === '20261101.2', 'the new service to serve 20261101.2');
    await waitFor(async () => (await served(otherReader.url)) === '20261101.2', 'the old reader to serve 20261101.2');
    // The old till follows the new service; then the new till takes the old till's folder over.
    ok('old till, new release', await sync(old, newService.url));
    expect(tillVersion(till)).toBe('20261101.2');
    ok('new till on the old till', await sync(now, newService.url));
    expect(tillVersion(till)).toBe('20261101.2');

    // Nothing lost: the bucket verifies, both releases are kept, the account and its key are there.
    ok('new verify --bucket', await now(['verify', '--bucket', bucket, '--data-dir', data]));
    expect(ok('new releases', await now(['releases', '--data-dir', data])).stdout).toMatch(/20261101\.1[\s\S]*20261101\.2/);
    const accounts = ok('new accounts list', await now(['accounts', 'list', '--json', '--data-dir', data])).stdout;
    expect(accounts).toContain('cassa@example.it');
    expect(ok('new history', await now(['history', '1001', '--data-dir', data])).stdout).toContain('1001');
  });
});

describe('the upgrade from 1.0.0 (bucket format 2)', () => {
  const old = tariffOf(released('1.0.0').version);
  const previous = () => installed.get('1.0.0')!;
  const LIQUIDS = join(REPO, 'fixtures/adm/listino-liquidi-2026-11-01.pdf');

  it('takes over its bucket (its price history one file), data dir, registry and till; a reader left on 1.0.0 refuses format 3 by name and keeps its release', async () => {
    const w = join(work, 'from-1.0.0');
    mkdirSync(w);
    const { data, bucket, till, sync } = await stateOf(old, w);
    ok('old history import', await old(['history', 'import', LIQUIDS, '--data-dir', data]));
    expect(JSON.parse(readBucketKey(bucket, FORMAT_KEY)!.toString())).toMatchObject({ version: 2 });
    expect(JSON.parse(readBucketKey(bucket, 'history/manifest.json')!.toString())).toHaveProperty('file');
    const historyBefore = ok('old history', await old(['history', '1001', '--json', '--data-dir', data])).stdout;
    const oldService = await serve([previous()], data);
    ok('old till, old service', await sync(old, oldService.url));

    // 2. The readers: this machine's service is upgraded. Another machine's reader is left on
    // 1.0.0, against the documented order, to show what it then does.
    await stop(oldService.child);
    const newService = await serve([process.execPath, CLI], data);
    expect(await served(newService.url)).toBe('20261101.1');
    const leftBehind = await serve([previous()], join(w, 'reader2'), ['--bucket', bucket]);
    expect(await served(leftBehind.url)).toBe('20261101.1');
    ok('old till, new service', await sync(old, newService.url));

    // 3. The writer: its first publication swaps the format object to 3 and makes the history a log.
    const b2 = await publishSecond(w, data);
    expect(JSON.parse(readBucketKey(bucket, FORMAT_KEY)!.toString())).toMatchObject({
      version: 3,
      minReaderVersion: 3,
      minWriterVersion: 3,
    });
    expect(JSON.parse(readBucketKey(bucket, 'history/manifest.json')!.toString())).toMatchObject({ layout: 2, release: '20261101.2' });
    await waitFor(async () => (await served(newService.url)) === '20261101.2', 'the new service to serve 20261101.2');

    // The reader left on 1.0.0 refuses format 3 by name and keeps the release it had; so does every 1.0.0 command.
    await waitFor(
      async () =>
        String(((await (await fetch(`${leftBehind.url}/healthz`)).json()) as { problem?: string }).problem ?? '').includes(
          'needs a reader of format 3',
        ),
      'the reader left on 1.0.0 to say why it follows no newer release',
    );
    expect(await served(leftBehind.url)).toBe('20261101.1');
    const refusedRead = await old(['verify', '--bucket', bucket, '--data-dir', data]);
    expect(refusedRead.status).toBe(1);
    expect(refusedRead.stderr).toContain(`${bucket}/${FORMAT_KEY}: the bucket is of format 3`);
    const refusedWrite = await old(['publish', b2, '--data-dir', join(w, 'other-writer'), '--bucket', bucket]);
    expect(refusedWrite.status).toBe(1);
    expect(refusedWrite.stderr).toContain('the bucket is of format 3');

    // The tills: the old one follows the new service; the new one takes the old one's folder over.
    ok('old till, new release', await sync(old, newService.url));
    expect(tillVersion(till)).toBe('20261101.2');
    ok('new till on the old till', await sync(now, newService.url));

    // Nothing lost: the bucket verifies; the history is the one 1.0.0 kept, its import still there to take out.
    ok('new verify --bucket', await now(['verify', '--bucket', bucket, '--data-dir', data]));
    const historyAfter = JSON.parse(ok('new history', await now(['history', '1001', '--json', '--data-dir', data])).stdout);
    expect(historyAfter.steps).toEqual(JSON.parse(historyBefore).steps);
    expect(
      ok('new history remove (dry run)', await now(['history', 'remove', 'listino-liquidi-2026-11-01.pdf', '--data-dir', data])).stdout,
    ).toContain('would remove listino-liquidi-2026-11-01.pdf');
    expect(ok('new accounts list', await now(['accounts', 'list', '--json', '--data-dir', data])).stdout).toContain('cassa@example.it');
  });
});
