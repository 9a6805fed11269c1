import { createHash } from 'node:crypto';
import {
  chmodSync,
  cpSync,
  existsSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { gzipSync } from 'node:zlib';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { readDatasetDocdb } from '../../src/release/dataset-docdb.ts';
import { parseDatasetJson } from '../../src/release/dataset-json.ts';
import { serveRealReleases } from '../helpers/real-releases.ts';
import { asRoot, fill, smallDisk } from '../helpers/machine.ts';
import { REPO, runCli, runCliProcess } from '../helpers/run-cli.ts';
import { logPosition, v1RequestsSince } from '../helpers/serve-process.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import { waitFor } from '../helpers/wait-for.ts';

const JULY = '20260722.1';
const AUGUST = '20260801.1';
// The till's service as it runs: a `tariff serve` process.
const stand = serveRealReleases({ TARIFF_MANIFEST_POLL_MS: '100' }, { process: true });
const cli = (args: string[]) => runCli([...args, '--data-dir', stand.dataDir]);
const serviceUrl = () => stand.service.url;
const apiUrl = () => `${stand.service.url}/v1`;

let accounts = 0;
/** A new account (its own quota) and a key file readable by its owner only. */
async function keyFile(): Promise<string> {
  const email = `cassa${(accounts += 1)}@example.it`;
  expect((await cli(['accounts', 'create', email, '--type', 'User'])).status).toBe(0);
  const file = join(await tempDir(), 'tariffa.key');
  writeFileSync(file, `${JSON.parse((await cli(['keys', 'create', email, '--json'])).stdout).key}\n`);
  chmodSync(file, 0o600);
  return file;
}

/** Makes a kept release current and waits until the service serves it. */
async function current(version: string): Promise<void> {
  expect((await cli(['rollback', version])).status).toBe(0);
  await waitFor(async () => (await (await fetch(`${serviceUrl()}/healthz`)).json()).release === version, `the service to serve ${version}`);
}

const sync = (format: string, dest: string, key: string, options: { api?: string; extra?: string[]; process?: boolean } = {}) =>
  runCli(['sync', '--api', options.api ?? apiUrl(), '--format', format, '--dest', dest, '--key-file', key, ...(options.extra ?? [])], {
    process: options.process,
  });

const requestsSince = (from: number) => v1RequestsSince(stand.service, from);

const state = (dest: string) => JSON.parse(readFileSync(join(dest, 'sync-state.json'), 'utf8'));

async function installedRows(format: string, file: string) {
  if (format === 'json') return parseDatasetJson(readFileSync(file));
  if (format === 'docdb') return readDatasetDocdb(file);
  const db = new Database(file, { readonly: true });
  try {
    return {
      version: (db.prepare("SELECT value FROM meta WHERE key = 'version'").get() as { value: string }).value,
      products: db.prepare('SELECT * FROM products').all(),
      announced: db
        .prepare(
          'SELECT adm_code AS admCode, effective_from AS effectiveFrom, price_per_pack_cents AS pricePerPackCents FROM announced_prices',
        )
        .all(),
    };
  } finally {
    db.close();
  }
}

/** The till's lookup as docs/sync.md prints it (its first SQL block), run on an installed file. */
function tillLookup(file: string): unknown {
  const sql = /```sql\n([\s\S]*?)```/.exec(readFileSync(join(REPO, 'docs/sync.md'), 'utf8'))![1]!;
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare(sql).get();
  } finally {
    db.close();
  }
}
/** A carton barcode of 10 packs of TOSCANO T (45,00 € a pack): the price of what was scanned is 450,00 €. */
const CARTON = { adm_code: 21825, name: 'TOSCANO T', pack: 'da 6 sigari', kind: 'carton', units: 10, price_cents: 45000 };

describe.each(['json', 'sqlite', 'docdb'])('tariff sync --format %s against the service', (format) => {
  it('installs the current release, spends one read when nothing changed, and installs the next release', async () => {
    await current(JULY);
    const key = await keyFile();
    const dest = join(await tempDir(), 'tariffa');

    let from = await logPosition(stand.service);
    // A till's sync as its scheduler runs it: a real process (once; the other formats' runs are the same command in this process).
    const first = await sync(format, dest, key, { extra: ['--json'], process: format === 'sqlite' });
    expect(first.status).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({
      status: 'updated',
      version: JULY,
      previousVersion: null,
      reads: 2,
      file: join(dest, `dataset.${format}`),
    });
    expect(await requestsSince(from)).toEqual(['/v1/version 200', `/v1/dataset.${format}.gz 200`]);
    expect(await installedRows(format, join(dest, `dataset.${format}`))).toMatchObject({
      version: JULY,
      products: expect.arrayContaining([expect.objectContaining({ name: '2012 BY OSCAR VALLADARES COROJO ROBUSTO' })]),
    });
    expect((await installedRows(format, join(dest, `dataset.${format}`))).products).toHaveLength(2821);
    // The notice of 1 August, read on 22 July: its prices are announced in the installed copy.
    expect((await installedRows(format, join(dest, `dataset.${format}`))).announced).toEqual([
      expect.objectContaining({ admCode: 19784, effectiveFrom: '2026-08-01', pricePerPackCents: 19000 }),
      expect.objectContaining({ admCode: 20663, effectiveFrom: '2026-08-01', pricePerPackCents: 25000 }),
    ]);
    expect(state(dest)).toMatchObject({ installed: { version: JULY, format, file: `dataset-${JULY}.${format}` }, notBefore: null });
    // The name a till opens points at the copy the state names.
    expect(readlinkSync(join(dest, `dataset.${format}`))).toBe(`dataset-${JULY}.${format}`);
    if (format === 'sqlite') expect(tillLookup(join(dest, 'dataset.sqlite'))).toEqual(CARTON);

    // Nothing changed: quiet, exit 0, one read.
    from = await logPosition(stand.service);
    expect(await sync(format, dest, key)).toMatchObject({ status: 0, stdout: '', stderr: '' });
    expect(await requestsSince(from)).toEqual(['/v1/version 200']);

    await current(AUGUST);
    const next = await sync(format, dest, key);
    expect(next).toMatchObject({ status: 0, stdout: `updated ${AUGUST} (was ${JULY}): ${join(dest, `dataset.${format}`)}\n` });
    expect(state(dest).installed.version).toBe(AUGUST);
  });
});

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** Whether the state names a copy that exists and holds the SHA-256 the state records for it. */
function stateMatchesItsFile(dest: string): boolean {
  const { installed } = state(dest);
  if (!installed) return true;
  const path = join(dest, installed.file);
  return existsSync(path) && sha256(readFileSync(path)) === installed.fileSha256;
}

/** A till with July's release installed: its folder, key, the name it opens and that file's bytes. */
async function tillWithJuly(format: string) {
  await current(JULY);
  const dest = join(await tempDir(), 'tariffa');
  const key = await keyFile();
  expect((await sync(format, dest, key)).status).toBe(0);
  const file = join(dest, `dataset.${format}`);
  return { dest, key, file, good: readFileSync(file) };
}

describe.each(['json', 'sqlite', 'docdb'])('tariff sync --format %s repairs the installed copy', (format) => {
  it('downloads a deleted, truncated or garbage copy again on the next run, and puts back a lost name without a download', async () => {
    const { dest, file, good } = await tillWithJuly(format);
    const copy = join(dest, state(dest).installed.file);
    const damages: [string, () => void, string, number][] = [
      ['deleted', () => rmSync(copy), 'the installed copy is missing', 2],
      ['truncated', () => writeFileSync(file, good.subarray(0, good.length >> 1)), 'the installed copy was changed', 2],
      ['garbage', () => writeFileSync(file, 'garbage!'), 'the installed copy was changed', 2],
      ['name removed', () => rmSync(file), `dataset.${format} does not point at the installed copy`, 1],
    ];
    for (const [damage, apply, reason, reads] of damages) {
      // Each repair on an account of its own: the read quota is not what is tested.
      const fresh = await keyFile();
      apply();
      const from = await logPosition(stand.service);
      const repaired = await sync(format, dest, fresh, { extra: ['--json'] });
      expect(repaired.status, damage).toBe(0);
      expect(JSON.parse(repaired.stdout), damage).toMatchObject({
        status: 'repaired',
        version: JULY,
        reads,
        repaired: expect.stringContaining(reason),
      });
      expect(await requestsSince(from), damage).toHaveLength(reads);
      expect(readFileSync(file).equals(good), damage).toBe(true);
      expect(stateMatchesItsFile(dest), damage).toBe(true);
      // Repaired: the next run finds it current again, quietly.
      expect(await sync(format, dest, fresh), damage).toMatchObject({ status: 0, stdout: '' });
    }
    const human = await sync(format, dest, await keyFile(), { extra: [] });
    expect(human.stdout).toBe('');
    writeFileSync(file, 'garbage!');
    expect((await sync(format, dest, await keyFile())).stdout).toBe(
      `repaired ${JULY} (the installed copy was changed (its SHA-256 is not the one installed)): ${file}\n`,
    );
  });

  it('--check hashes a copy whose size and time were kept, and repairs a change they hide', async () => {
    const { dest, key, file, good } = await tillWithJuly(format);
    const changed = Buffer.from(good);
    changed[changed.length >> 1]! ^= 0x01;
    writeFileSync(file, changed);
    // A change the size and time do not show (a tool that keeps the time, a clock set back): as the state recorded them.
    const recorded = state(dest);
    recorded.installed.fileMtimeMs = statSync(file).mtimeMs;
    writeFileSync(join(dest, 'sync-state.json'), JSON.stringify(recorded));
    // Size and time as installed: the everyday run trusts them (one stat, no hashing).
    expect(await sync(format, dest, key)).toMatchObject({ status: 0, stdout: '' });
    const checked = await sync(format, dest, key, { extra: ['--check', '--json'] });
    expect(JSON.parse(checked.stdout)).toMatchObject({ status: 'repaired', repaired: expect.stringContaining('was changed') });
    expect(readFileSync(file).equals(good)).toBe(true);
  });
});

describe.skipIf(!asRoot)('tariff sync into a full folder (needs root: a small disk)', () => {
  it('installs nothing, says so naming the folder, and keeps the installed copy', async () => {
    const { dest, key, file, good } = await tillWithJuly('sqlite');
    const state = readFileSync(join(dest, 'sync-state.json'));
    // The till's folder on a disk of its own that is then filled (the copy stays as it is).
    const disk = join(await tempDir(), 'disk');
    const small = smallDisk(disk, 8 * 1024 * 1024);
    expect(small, 'a tmpfs could not be mounted').not.toBeNull();
    try {
      cpSync(dest, join(disk, 'tariffa'), { recursive: true, verbatimSymlinks: true });
      fill(disk);
      await current(AUGUST);
      const full = await sync('sqlite', join(disk, 'tariffa'), key);
      expect(full.status).toBe(1);
      expect(full.stderr).toContain(join(disk, 'tariffa'));
      expect(full.stderr).toMatch(/no space left on the device \(ENOSPC\)|the installed copy is unchanged/);
      // What to do, with where: the disk to free space on (docs/operations.md, "Faults of the machine").
      expect(full.stderr).toContain(`Free space on the disk holding ${join(disk, 'tariffa')}`);
      expect(full.stderr).not.toMatch(/This is a bug|\n\s+at /);
      expect(readFileSync(join(disk, 'tariffa', 'dataset.sqlite')).equals(good)).toBe(true);
      expect(readFileSync(join(disk, 'tariffa', 'sync-state.json')).equals(state)).toBe(true);
      expect(readdirSync(join(disk, 'tariffa')).filter((name) => name.startsWith('.'))).toEqual([]);
    } finally {
      small!.close();
    }
    expect(readFileSync(file).equals(good)).toBe(true);
  });
});

describe('tariff sync cut short', () => {
  const KILLER = join(REPO, 'test/helpers/kill-after-writes.mjs');
  const killable = (dest: string, key: string, env: Record<string, string>) =>
    runCliProcess(['sync', '--api', apiUrl(), '--format', 'sqlite', '--dest', dest, '--key-file', key], {
      env: { NODE_OPTIONS: `--import=${KILLER}`, ...env },
    });

  it('killed after any of its writes, never leaves a state naming a copy that does not hold what it says', async () => {
    await current(JULY);
    const base = join(await tempDir(), 'july');
    expect((await sync('sqlite', base, await keyFile())).status).toBe(0);
    await current(AUGUST);
    // How many writes a whole run from July to August makes, then 20 points spread over them.
    const counting = join(await tempDir(), 'count');
    cpSync(base, counting, { recursive: true, verbatimSymlinks: true });
    const counted = await killable(counting, await keyFile(), { TARIFF_TEST_COUNT_WRITES: '1' });
    const total = Number(/writes: (\d+)/.exec(counted.stderr)?.[1]);
    expect(total).toBeGreaterThan(10);
    const points = [...new Set(Array.from({ length: 20 }, (_, i) => 1 + Math.round((i * (total - 1)) / 19)))];
    for (const point of points) {
      const dest = join(await tempDir(), `killed-${point}`);
      cpSync(base, dest, { recursive: true, verbatimSymlinks: true });
      const killed = await killable(dest, await keyFile(), { TARIFF_TEST_KILL_AFTER_WRITE: String(point) });
      // A download is written in as many chunks as the network gave it: a run may make a write or
      // two fewer than the counted one, and then ends before the last points.
      if (killed.status === 0) expect(point, `killed after write ${point}`).toBeGreaterThan(total - 3);
      expect(stateMatchesItsFile(dest), `after write ${point} of ${total}`).toBe(true);
      // The killed run's lock is taken over once it is stale: its time moved back, as if that long had passed.
      const past = new Date(Date.now() - 3_600_000);
      if (existsSync(join(dest, 'sync.lock'))) utimesSync(join(dest, 'sync.lock'), past, past);
      // The next run ends with the current release in place and nothing left behind.
      const next = await sync('sqlite', dest, await keyFile());
      expect(next.status, `the run after write ${point}: ${next.stderr}`).toBe(0);
      expect(state(dest).installed.version).toBe(AUGUST);
      expect(stateMatchesItsFile(dest)).toBe(true);
      expect(((await installedRows('sqlite', join(dest, 'dataset.sqlite'))) as { version: string }).version).toBe(AUGUST);
      expect(readdirSync(dest).sort()).toEqual(
        [`dataset-${AUGUST}.sqlite`, 'dataset.sqlite', 'sync-state.json', 'sync.lock'].filter(
          (name) => name !== 'sync.lock' || existsSync(join(dest, name)),
        ),
      );
    }
  });
});

describe.each(['json', 'sqlite', 'docdb'])('tariff sync --format %s when things go wrong', (format) => {
  it('stops on 429 with when to try again, and makes no call before then', async () => {
    await current(AUGUST);
    const key = await keyFile();
    const bearer = { authorization: `Bearer ${readFileSync(key, 'utf8').trim()}` };
    for (let i = 0; i < 10; i += 1) expect((await fetch(`${apiUrl()}/me`, { headers: bearer })).status).toBe(200);
    const dest = join(await tempDir(), 'tariffa');

    const refused = await sync(format, dest, key);
    expect(refused.status).toBe(1);
    // Retry-After counts the seconds to the next UTC midnight, when the read quota resets.
    const midnight = new Date();
    midnight.setUTCHours(24, 0, 0, 0);
    const until = /try again after (\S+); until then this command makes no call/.exec(refused.stderr)?.[1];
    expect(refused.stderr).toContain('the service answered 429 rate_limited');
    expect(Date.parse(until!) - midnight.getTime()).toBeGreaterThanOrEqual(0);
    expect(Date.parse(until!) - midnight.getTime()).toBeLessThan(60_000);
    expect(state(dest)).toMatchObject({ installed: null, notBefore: until, waitReason: '429 rate_limited' });

    const from = await logPosition(stand.service);
    const waiting = await sync(format, dest, key);
    expect(waiting.status).toBe(1);
    expect(waiting.stderr).toContain(`Not calling the service before ${until}: it asked to wait (429 rate_limited)`);
    expect(await requestsSince(from)).toEqual([]);
  });

  it('keeps the installed copy when the file is corrupted in transit, and installs it whole on the next run', async () => {
    await current(JULY);
    const key = await keyFile();
    const dest = join(await tempDir(), 'tariffa');
    expect((await sync(format, dest, key)).status).toBe(0);
    const installed = readFileSync(join(dest, `dataset.${format}`));
    await current(AUGUST);

    const proxy = await flippingProxy(new URL(serviceUrl()));
    try {
      const corrupted = await sync(format, dest, key, { api: `${proxy.url}/v1` });
      expect(corrupted.status).toBe(1);
      expect(corrupted.stderr).toMatch(
        new RegExp(
          `dataset\\.${format}\\.gz: the downloaded file does not verify: (SHA-256 [0-9a-f]{64}, the manifest says [0-9a-f]{64}|it does not unpack)`,
        ),
      );
      expect(corrupted.stderr).toContain('the installed copy is unchanged');
    } finally {
      await proxy.close();
    }
    expect(readFileSync(join(dest, `dataset.${format}`)).equals(installed)).toBe(true);
    expect(state(dest)).toMatchObject({ installed: { version: JULY }, notBefore: null });
    expect((await sync(format, dest, key)).stdout).toBe(`updated ${AUGUST} (was ${JULY}): ${join(dest, `dataset.${format}`)}\n`);
  });

  it('says so when the service is down, and changes nothing', async () => {
    const key = await keyFile();
    const dest = join(await tempDir(), 'tariffa');
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const down = await sync(format, dest, key, { api: `http://127.0.0.1:${port}/v1` });
    expect(down.status).toBe(1);
    expect(down.stderr).toContain(`http://127.0.0.1:${port}/v1/version: cannot reach the service`);
    expect(existsSync(join(dest, `dataset.${format}`))).toBe(false);
    expect(existsSync(join(dest, 'sync-state.json'))).toBe(false);
  });
});

describe('tariff sync usage', () => {
  it('takes the key only from a file or the environment, and exits 2 on usage errors', async () => {
    const dest = join(await tempDir(), 'tariffa');
    expect((await runCli(['sync', '--api', apiUrl(), '--format', 'json', '--dest', dest], { env: { TARIFF_API_KEY: '' } })).status).toBe(2);
    expect((await runCli(['sync', '--api', apiUrl(), '--format', 'json', '--dest', dest, '--key', 'ttd_x'])).status).toBe(2);
    expect((await runCli(['sync', '--api', apiUrl(), '--format', 'xml', '--dest', dest, '--key-file', '/nonexistent'])).status).toBe(2);
    expect((await runCli(['sync', '--api', apiUrl(), '--format', 'json', '--dest', dest, '--key-file', '/nonexistent'])).stderr).toContain(
      '--key-file /nonexistent: cannot read it (ENOENT)',
    );
    const key = readFileSync(await keyFile(), 'utf8').trim();
    expect((await runCli(['sync', '--api', apiUrl(), '--format', 'json', '--dest', dest], { env: { TARIFF_API_KEY: key } })).status).toBe(
      0,
    );
    // Switching formats replaces the installed file: the old one would go stale unnoticed.
    expect((await runCli(['sync', '--api', apiUrl(), '--format', 'sqlite', '--dest', dest], { env: { TARIFF_API_KEY: key } })).status).toBe(
      0,
    );
    expect([existsSync(join(dest, 'dataset.json')), existsSync(join(dest, 'dataset.sqlite'))]).toEqual([false, true]);
  });

  it('says what --api should be when it lacks /v1, instead of a bare 404', async () => {
    const dest = join(await tempDir(), 'tariffa');
    const wrong = await sync('json', dest, await keyFile(), { api: serviceUrl() });
    expect(wrong.status).toBe(1);
    expect(wrong.stderr).toContain(`--api must be the service's /v1 base URL (e.g. ${serviceUrl()}/v1)`);
  });
});

/** An HTTP proxy to the service that flips one byte in the middle of every dataset file it passes on. */
async function flippingProxy(target: URL): Promise<{ url: string; close: () => Promise<void> }> {
  const server: Server = createServer((incoming, outgoing) => {
    const upstream = request(
      { host: target.hostname, port: target.port, path: incoming.url, method: incoming.method, headers: incoming.headers },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const body = Buffer.concat(chunks);
          if (incoming.url?.startsWith('/v1/dataset.') && body.length > 0) body[Math.floor(body.length / 2)]! ^= 0x01;
          outgoing.writeHead(response.statusCode!, response.headers).end(body);
        });
      },
    );
    incoming.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe('tariff sync against a hostile or racing /v1 server', () => {
  /** A /v1 stand-in: /version names `file` (its SHA-256 and size unless told otherwise); the file route is the test's. */
  async function hostile(
    file: Buffer,
    answer: (res: import('node:http').ServerResponse) => void,
    names: { sha256?: string; size?: number } = {},
  ) {
    const digest = { sha256: names.sha256 ?? createHash('sha256').update(file).digest('hex'), size: names.size ?? file.length };
    const entry = (format: string) => ({ url: `http://127.0.0.1/v1/dataset.${format}.gz`, ...digest });
    const manifest = {
      version: '20261101.1',
      tariffDate: '2026-11-01',
      generatedAt: '2026-11-22T06:00:00+01:00',
      source: 'Agenzia delle Dogane e dei Monopoli',
      schemaVersion: 2,
      counts: { products: 1, barcodes: 0 },
      files: { json: entry('json'), sqlite: entry('sqlite'), docdb: { ...entry('docdb'), docdbVersion: '4.1.1', schemaVersion: 2 } },
    };
    const server = createServer((req, res) => {
      if (req.url === '/v1/version') return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(manifest));
      answer(res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    // A client's pool may keep a connection open that carries no request yet (undici closes it after
    // about 3 s): cut every connection on close, so the test never waits on that timer.
    const close = () =>
      new Promise((resolve) => {
        server.close(resolve);
        server.closeAllConnections();
      });
    return { api: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, close };
  }
  async function run(api: string, extra: string[] = []) {
    const key = join(await tempDir(), 'key');
    writeFileSync(key, 'ttd_hostile\n', { mode: 0o600 });
    const dest = join(await tempDir(), 'tariffa');
    // A real process: this server breaks the API's description on purpose, and the suite checks every
    // answer a fetch in the test process receives against it (test/setup/openapi-fetch.ts).
    const args = ['sync', '--api', api, '--format', 'json', '--dest', dest, '--key-file', key, ...extra];
    return { dest, result: await runCli(args, { process: true }) };
  }

  it('fails cleanly when a release came out between its two calls (the ETag names another file)', async () => {
    const file = gzipSync('{}');
    const stand = await hostile(file, (res) => {
      res.writeHead(200, { etag: `"${'b'.repeat(64)}"` });
      res.write(Buffer.alloc(1 << 20));
    });
    try {
      const { dest, result } = await run(stand.api, ['--json']);
      expect(result.status).toBe(1);
      expect(result.stderr).toContain('is not the SHA-256 the manifest names (a new release came out meanwhile)');
      expect(result.stderr).not.toMatch(/Unhandled|RequestAbortedError|\n\s+at /);
      expect(JSON.parse(result.stdout)).toMatchObject({ ok: false, error: { code: 'sync_verify_failed' } });
      expect(existsSync(join(dest, 'dataset.json'))).toBe(false);
    } finally {
      await stand.close();
    }
  });

  it('stops reading a body longer than the manifest says, instead of reading until its deadline', async () => {
    const file = gzipSync('{}');
    let feeding: NodeJS.Timeout | undefined;
    const stand = await hostile(file, (res) => {
      res.writeHead(200);
      feeding = setInterval(() => res.write(Buffer.alloc(64 * 1024)), 5);
      res.on('close', () => clearInterval(feeding));
    });
    try {
      const { result } = await run(stand.api);
      expect(result.status).toBe(1);
      expect(result.stderr).toContain(`the body is longer than the ${file.length} bytes the manifest says`);
    } finally {
      clearInterval(feeding);
      await stand.close();
    }
  });

  it('refuses a gzip bomb the manifest names before it fills the disk', async () => {
    const bomb = gzipSync(Buffer.alloc(100 * 1024 * 1024));
    const stand = await hostile(bomb, (res) => res.writeHead(200).end(bomb));
    try {
      const { dest, result } = await run(stand.api);
      expect(result.status).toBe(1);
      expect(result.stderr).toMatch(/it does not unpack \(it unpacks to more than \d+ bytes, 100 times its size at most\)/);
      expect(readdirSync(dest).filter((name) => name.startsWith('.'))).toEqual([]);
    } finally {
      await stand.close();
    }
  });
});

/** A service that answers every call with 500, as one that broke would. */
async function brokenService(): Promise<{ api: string; close: () => Promise<void> }> {
  const server = createServer((_, response) => {
    response.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"internal_error","message":"broken"}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    api: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe('tariff sync never loses the till’s last good copy', () => {
  it('a state moved aside and a service answering 500: the copy and the name the till opens stay; the state is rebuilt from the copy', async () => {
    const { dest, key, file, good } = await tillWithJuly('sqlite');
    const copy = state(dest).installed.file as string;
    // What the message for an unreadable state tells the operator to do.
    cpSync(join(dest, 'sync-state.json'), join(dest, 'sync-state.json.aside'));
    rmSync(join(dest, 'sync-state.json'));
    const broken = await brokenService();
    try {
      const failed = await sync('sqlite', dest, key, { api: broken.api });
      expect(failed.status).toBe(1);
      expect(failed.stderr).toContain('500 internal_error');
    } finally {
      await broken.close();
    }
    expect(readlinkSync(file)).toBe(copy);
    expect(readFileSync(file).equals(good)).toBe(true);
    // A program opening the name finds the release, not an empty database made through a dangling link.
    expect(((await installedRows('sqlite', file)) as { version: string }).version).toBe(JULY);
    expect(state(dest).installed).toMatchObject({ version: JULY, format: 'sqlite', file: copy });

    // The service back (and its wait over): the copy is recognised as the release, nothing downloaded.
    writeFileSync(join(dest, 'sync-state.json'), JSON.stringify({ ...state(dest), notBefore: null, waitReason: null }));
    const from = await logPosition(stand.service);
    expect(await sync('sqlite', dest, key)).toMatchObject({ status: 0, stdout: '' });
    expect(await requestsSince(from)).toHaveLength(1);
    expect(stateMatchesItsFile(dest)).toBe(true);
  });

  it('a damaged state is rebuilt from the copy too, and a link to nothing is removed rather than left for a program to open', async () => {
    const { dest, key, file } = await tillWithJuly('json');
    writeFileSync(join(dest, 'sync-state.json'), '{ half a state');
    const from = await logPosition(stand.service);
    expect(await sync('json', dest, key)).toMatchObject({ status: 0, stdout: '' });
    expect(await requestsSince(from)).toHaveLength(1);
    expect(state(dest).installed.version).toBe(JULY);

    rmSync(join(dest, state(dest).installed.file));
    rmSync(join(dest, 'sync-state.json'));
    const broken = await brokenService();
    try {
      expect((await sync('json', dest, key, { api: broken.api })).status).toBe(1);
    } finally {
      await broken.close();
    }
    expect(existsSync(file) || readdirSync(dest).includes('dataset.json')).toBe(false);
  });
});

describe('tariff sync into a folder that cannot hold symbolic links (vfat, SMB shares, Windows)', () => {
  /** The file system's answer on vfat through FUSE: links are not supported. */
  const noLinks = async () => {
    throw Object.assign(new Error('ENOSYS: function not implemented, symlink'), { code: 'ENOSYS' });
  };
  const syncHere = async (dest: string, key: string) => {
    const { syncDataset } = await import('../../src/sync/sync-dataset.ts');
    return syncDataset({
      api: apiUrl(),
      format: 'sqlite',
      dest,
      key: readFileSync(key, 'utf8').trim(),
      now: () => new Date(),
      deadlineMs: 30_000,
      makeLink: noLinks,
    });
  };

  it('installs dataset.sqlite as a plain file replaced by rename, remembers it, and updates in place', async () => {
    await current(JULY);
    const dest = join(await tempDir(), 'vfat');
    const key = await keyFile();
    expect(await syncHere(dest, key)).toMatchObject({ status: 'updated', version: JULY });
    const file = join(dest, 'dataset.sqlite');
    expect(statSync(file).isFile()).toBe(true);
    expect(state(dest)).toMatchObject({ layout: 'plain', installed: { version: JULY, file: 'dataset.sqlite' } });
    expect(readdirSync(dest).sort()).toEqual(['dataset.sqlite', 'sync-state.json']);
    expect(await syncHere(dest, key)).toMatchObject({ status: 'current' });
    expect(stateMatchesItsFile(dest)).toBe(true);

    await current(AUGUST);
    expect(await syncHere(dest, key)).toMatchObject({ status: 'updated', version: AUGUST, previousVersion: JULY });
    expect(((await installedRows('sqlite', file)) as { version: string }).version).toBe(AUGUST);
    expect(readdirSync(dest).sort()).toEqual(['dataset.sqlite', 'sync-state.json']);
    expect(stateMatchesItsFile(dest)).toBe(true);
  });

  it('a till of the earlier plain layout, on such a folder, gets the new release (not stuck on the old one)', async () => {
    await current(JULY);
    const dest = join(await tempDir(), 'vfat-old');
    const key = await keyFile();
    expect(await syncHere(dest, key)).toMatchObject({ status: 'updated' });
    // The state as the earlier layout wrote it: the copy is dataset.sqlite itself, no layout recorded.
    const { layout: _, ...earlier } = state(dest);
    writeFileSync(join(dest, 'sync-state.json'), JSON.stringify(earlier));
    await current(AUGUST);
    expect(await syncHere(dest, key)).toMatchObject({ status: 'updated', version: AUGUST });
    expect(((await installedRows('sqlite', join(dest, 'dataset.sqlite'))) as { version: string }).version).toBe(AUGUST);
  });
});

describe('tariff sync after a killed run', () => {
  it('a run killed while it held the lock does not block the next one: run again at once, exit 0', async () => {
    await current(JULY);
    // A service that never answers: the run holds its lock until it is killed.
    const hanging = createServer(() => {});
    await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve));
    const dest = join(await tempDir(), 'killed');
    const key = await keyFile();
    const { spawn } = await import('node:child_process');
    const { CLI } = await import('../helpers/run-cli.ts');
    const api = `http://127.0.0.1:${(hanging.address() as AddressInfo).port}/v1`;
    const child = spawn(process.execPath, [CLI, 'sync', '--api', api, '--format', 'sqlite', '--dest', dest, '--key-file', key], {
      stdio: 'ignore',
    });
    try {
      await waitFor(async () => existsSync(join(dest, 'sync.lock.holder.json')), 'the run to take its lock');
      // The process that holds the lock: the command itself, or the Node.js 24 a launcher on another Node.js started.
      const holder = JSON.parse(readFileSync(join(dest, 'sync.lock.holder.json'), 'utf8')) as { pid: number };
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
      // A launcher's child ends on its own once its launcher is gone, a moment later: waited for, not assumed.
      const running = () => {
        // A zombie (state Z) has ended: only its parent's reaping is left.
        const stat = existsSync(`/proc/${holder.pid}/stat`) ? readFileSync(`/proc/${holder.pid}/stat`, 'utf8') : '';
        return stat !== '' && stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
      };
      await waitFor(() => !running(), 'the killed run to be gone', 10_000);
    } finally {
      hanging.closeAllConnections();
      hanging.close();
    }
    expect(existsSync(join(dest, 'sync.lock'))).toBe(true);
    const next = await sync('sqlite', dest, key);
    expect(next.status, next.stderr).toBe(0);
    expect(state(dest).installed.version).toBe(JULY);
  });
});
