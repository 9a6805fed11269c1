import { execFile, spawn, spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REAL_LISTS } from '../../fixtures/adm-real-lists.ts';
import { waitFor } from '../helpers/wait-for.ts';
import { REPO, type CliResult } from '../helpers/run-cli.ts';
import { readUnit } from '../helpers/systemd-unit.ts';

// The product as an operator installs it: `npm pack`, then `npm install -g --prefix` of the tarball
// into a folder of its own, and the `tariff` it puts on PATH run from elsewhere. Run once by
// .ci/run (`npm run test:packed`): installing compiles the native addon again, minutes, not seconds.
const VERSION = (JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string }).version;

let prefix: string;
let tarball: string;
let work: string;
/** The machine's own PATH behind the install's bin folder, as a crontab sets it. */
let env: Record<string, string>;

function run(command: string, args: string[], options: { cwd: string; env?: Record<string, string> }): Promise<CliResult> {
  return new Promise((resolve) =>
    execFile(command, args, { ...options, maxBuffer: 64 << 20 }, (error, stdout, stderr) =>
      resolve({ status: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    ),
  );
}

const tariff = (args: string[]) => run('tariff', args, { cwd: work, env });
/** Folders that outlive each test (tempDir's go after every test), removed after the file. */
const folders: string[] = [];
const folder = (prefix: string) => folders[folders.push(mkdtempSync(join(tmpdir(), prefix))) - 1]!;

beforeAll(async () => {
  const packed = folder('tariff-pack-');
  const pack = await run('npm', ['pack', '--json', '--pack-destination', packed], { cwd: REPO });
  expect(pack.status, pack.stderr).toBe(0);
  tarball = join(packed, (JSON.parse(pack.stdout) as { filename: string }[])[0]!.filename);
  prefix = folder('tariff-prefix-');
  work = folder('tariff-work-');
  const install = await run('npm', ['install', '--global', '--prefix', prefix, '--ignore-scripts', '--no-audit', '--no-fund', tarball], {
    cwd: work,
  });
  expect(install.status, install.stderr).toBe(0);
  env = { PATH: `${join(prefix, 'bin')}:${process.env.PATH}`, HOME: work, TARIFF_DATA_DIR: join(work, 'var') };
}, 900_000);
afterAll(() => folders.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

describe('the packed tarball', () => {
  it('holds the built command and no tests, sources or development files', async () => {
    const listed = await run('tar', ['tzf', tarball], { cwd: work });
    const files = listed.stdout.trim().split('\n');
    expect(files).toContain('package/dist/main.js');
    expect(files).toContain('package/bin/tariff.js');
    expect(files).toContain('package/bin/tariff');
    // The product's own files: its dependencies come bundled as their authors published them.
    const own = files.filter((file) => !file.startsWith('package/node_modules/'));
    expect(own.filter((file) => /\.test\.|^package\/(src|test|bench)\/|\.ts$/.test(file))).toEqual([]);
    // Every dependency in it, as locked (npm ignores the shrinkwrap of a tarball installed globally).
    expect(files).toContain('package/node_modules/@aws-sdk/client-s3/package.json');
    const installed = join(prefix, 'lib/node_modules/tobacco-tariff-dataset/node_modules');
    for (const dev of ['vitest', 'typescript', 'esbuild', 'eslint', 'playwright-core']) expect(readdirSync(installed)).not.toContain(dev);
  });

  it('holds every file a unit of deploy/systemd names in Documentation=, and the units', async () => {
    const files = (await run('tar', ['tzf', tarball], { cwd: work })).stdout.trim().split('\n');
    const units = join(REPO, 'deploy/systemd');
    const prefix = `file:///opt/tariff/lib/node_modules/tobacco-tariff-dataset/`;
    for (const name of readdirSync(units).filter((file) => file.endsWith('.service'))) {
      expect(files, 'the units are in the package').toContain(`package/deploy/systemd/${name}`);
      for (const url of readUnit(join(units, name)).Unit!.Documentation!.join(' ').split(/\s+/)) {
        expect(url.startsWith(prefix), `${name}: ${url}`).toBe(true);
        expect(files, `${name}: ${url}`).toContain(`package/${url.slice(prefix.length)}`);
      }
    }
  });

  it('installs exactly the versions the lockfile (npm-shrinkwrap.json, in the tarball) locks, the Node.js runtime included', async () => {
    const listed = await run('tar', ['tzf', tarball], { cwd: work });
    expect(listed.stdout.split('\n')).toContain('package/npm-shrinkwrap.json');
    const lock = JSON.parse(readFileSync(join(REPO, 'npm-shrinkwrap.json'), 'utf8')) as {
      packages: Record<string, { version?: string; dev?: boolean; optional?: boolean; os?: string | string[]; cpu?: string | string[] }>;
    };
    const root = join(prefix, 'lib/node_modules/tobacco-tariff-dataset');
    const differ: string[] = [];
    let compared = 0;
    for (const [path, entry] of Object.entries(lock.packages)) {
      if (path === '' || entry.dev || !entry.version) continue;
      let installed: string;
      try {
        installed = (JSON.parse(readFileSync(join(root, path, 'package.json'), 'utf8')) as { version: string }).version;
      } catch {
        // Absent: only an optional package for another machine (another platform's Node.js) may be.
        const here =
          [entry.os ?? process.platform].flat().includes(process.platform) && [entry.cpu ?? process.arch].flat().includes(process.arch);
        if (!entry.optional || here) differ.push(`${path}: locked ${entry.version}, not installed`);
        continue;
      }
      compared += 1;
      if (installed !== entry.version) differ.push(`${path}: locked ${entry.version}, installed ${installed}`);
    }
    expect(differ).toEqual([]);
    expect(compared).toBeGreaterThan(50);
    const runtime = lock.packages[`node_modules/node-linux-${process.arch}`]!.version;
    expect((await tariff(['--version'])).stdout).toBe(`${VERSION} (Node.js ${runtime})\n`);
  });

  it('puts `tariff` on PATH, running on Node.js 24 from any folder', async () => {
    expect(await tariff(['--version'])).toEqual({ status: 0, stdout: `${VERSION} (Node.js ${process.versions.node})\n`, stderr: '' });
  });

  it('builds, verifies, serves and syncs a release of a real list', async () => {
    const source = join(work, 'lists');
    mkdirSync(source);
    copyFileSync(join(REPO, 'fixtures/adm', REAL_LISTS[0]), join(source, REAL_LISTS[0]));
    const built = await tariff(['build', '--source', source, '--date', '2026-11-22', '--out', 'release']);
    expect(built.status, built.stderr).toBe(0);
    expect(await tariff(['verify', 'release'])).toMatchObject({ status: 0 });
    expect((await tariff(['publish', 'release'])).status).toBe(0);
    expect((await tariff(['accounts', 'create', 'cassa@example.it', '--type', 'User'])).status).toBe(0);
    const key = join(work, 'tariffa.key');
    writeFileSync(key, `${(JSON.parse((await tariff(['keys', 'create', 'cassa@example.it', '--json'])).stdout) as { key: string }).key}\n`);
    chmodSync(key, 0o600);

    const service = spawn('tariff', ['serve', '--host', '127.0.0.1', '--port', '0'], { cwd: work, env, stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        service.once('exit', (code) => reject(new Error(`tariff serve exited with ${code}`)));
        createInterface({ input: service.stdout! }).on('line', (line) => {
          const entry = JSON.parse(line) as { event?: string; url?: string };
          if (entry.event === 'service.listening') resolve(String(entry.url));
        });
      });
      // The `tariff` on PATH became the bundled Node.js 24 itself (exec): no launcher waits beside it.
      const exe = readlinkSync(`/proc/${service.pid}/exe`);
      expect(exe).toBe(join(prefix, 'lib/node_modules/tobacco-tariff-dataset/node_modules', `node-linux-${process.arch}`, 'bin/node'));
      expect(spawnSync('ps', ['--ppid', String(service.pid), '-o', 'pid='], { encoding: 'utf8' }).stdout.trim()).toBe('');
      const synced = await tariff(['sync', '--api', `${url}/v1`, '--format', 'sqlite', '--dest', 'till', '--key-file', key, '--json']);
      expect(synced.status, synced.stderr).toBe(0);
      expect(JSON.parse(synced.stdout)).toMatchObject({ status: 'updated', version: '20260722.1' });
      // The catalogue is built by a process of its own, from the installed package's files.
      const search = await fetch(`${url}/prodotti?q=toscano`);
      expect(search.status).toBe(200);
      expect(await search.text()).toContain('TOSCANO');
      // It ends once its catalogue is written: nothing stays beside the service.
      const children = () => spawnSync('ps', ['--ppid', String(service.pid), '-o', 'pid='], { encoding: 'utf8' }).stdout.trim();
      await waitFor(() => children() === '', 'the catalogue builder to end');
    } finally {
      const stopped = new Promise((resolve) => service.once('exit', resolve));
      service.kill('SIGTERM');
      await stopped;
    }
  });
});
