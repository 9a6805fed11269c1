import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { freePort } from '../helpers/machine.ts';
import { CLI, REPO, runCli } from '../helpers/run-cli.ts';
import { serveInProcess } from '../helpers/serve-in-process.ts';
import { execStart, parseEnvironmentFile, readUnit } from '../helpers/systemd-unit.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import { waitFor } from '../helpers/wait-for.ts';

// The units of deploy/systemd run as systemd runs them (no systemd here: test/helpers/systemd-unit.ts
// reads ExecStart=, Environment= and an environment file as it does): every setting comes from
// the environment file an operator writes, and what they make is where the docs say.
const UNITS = join(REPO, 'deploy/systemd');
const unit = (name: string) => readUnit(join(UNITS, name));
const SAMPLE = join(REPO, 'fixtures/sample');

/** Runs a unit's command line as its own process (the installed /opt/tariff/bin/tariff is this checkout's CLI). */
function run(argv: string[], env: Record<string, string>, umask = '0077') {
  const [command, ...args] = argv;
  expect(command).toBe('/opt/tariff/bin/tariff');
  // The unit's UMask= (a shell sets it for the child: Node cannot for one it spawns).
  return spawn('/bin/sh', ['-c', `umask ${umask}; exec "$0" "$@"`, process.execPath, CLI, ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

describe('the units of deploy/systemd, run as systemd runs them', () => {
  it('tariff-serve listens where TARIFF_HOST and TARIFF_PORT of the environment file say, and a refused setting is not restarted', async () => {
    const dataDir = await tempDir();
    const port = await freePort();
    const file = `TARIFF_HOST=127.0.0.1\nTARIFF_PORT=${port}\nTARIFF_DATA_DIR=${dataDir}\nTARIFF_BUCKET=${join(dataDir, 'bucket')}\n`;
    const serve = unit('tariff-serve.service');
    const { argv, env } = execStart(serve, 'tariff-serve.service', parseEnvironmentFile(file), {
      stateDirectory: dataDir,
      stateRoot: dataDir,
    });
    const child = run(argv, env);
    try {
      await waitFor(
        async () => (await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => null))?.status === 200,
        'the service on its port',
      );
    } finally {
      child.kill('SIGTERM');
    }
    // A setting refused (exit 2) is not restarted into the start limit.
    expect(serve.Service!.RestartPreventExitStatus).toEqual(['2']);
    const refused = run(
      execStart(
        serve,
        'tariff-serve.service',
        { TARIFF_PORT: 'eighty', TARIFF_DATA_DIR: dataDir },
        { stateDirectory: dataDir, stateRoot: dataDir },
      ).argv,
      {
        TARIFF_PORT: 'eighty',
        TARIFF_DATA_DIR: dataDir,
      },
    );
    expect(await new Promise((resolve) => refused.once('exit', resolve))).toBe(2);
  });

  it('tariff-sync reads TARIFF_API_URL from the environment file and installs a copy every user of the till may read', async () => {
    const dataDir = await tempDir();
    const out = join(dataDir, 'build');
    expect(
      (await runCli(['build', '--source', join(SAMPLE, 'tariff'), '--date', '2026-11-22', '--out', out, '--data-dir', dataDir])).status,
    ).toBe(0);
    expect((await runCli(['publish', out, '--data-dir', dataDir])).status).toBe(0);
    expect((await runCli(['accounts', 'create', 'till@example.it', '--type', 'User', '--data-dir', dataDir])).status).toBe(0);
    const key = JSON.parse(
      (await runCli(['keys', 'create', 'till@example.it', '--label', 'till', '--json', '--data-dir', dataDir])).stdout,
    ).key;
    const service = await serveInProcess(dataDir);
    try {
      const credentials = join(dataDir, 'credentials');
      mkdirSync(credentials, { mode: 0o700 });
      writeFileSync(join(credentials, 'api-key'), `${key}\n`, { mode: 0o400 });
      const till = join(dataDir, 'tariff-till');
      mkdirSync(till, { mode: 0o755 });
      const file = `TARIFF_API_URL=${service.url}/v1\n`;
      const sync = unit('tariff-sync.service');
      const { argv, env } = execStart(sync, 'tariff-sync.service', parseEnvironmentFile(file), {
        stateDirectory: till,
        credentialsDirectory: credentials,
        stateRoot: dataDir,
      });
      expect(argv.join(' ')).not.toContain(key);
      const child = run(argv, env, sync.Service!.UMask![0]);
      let stderr = '';
      child.stderr!.on('data', (chunk) => (stderr += chunk));
      expect(await new Promise((resolve) => child.once('exit', resolve)), stderr).toBe(0);
      expect(statSync(till).mode & 0o777).toBe(0o755);
      for (const name of readdirSync(till)) expect(statSync(join(till, name)).mode & 0o004, `${name} readable by others`).toBe(0o004);
      expect(readdirSync(till)).toContain('dataset.sqlite');
      expect(sync.Service!.DynamicUser).toBeUndefined();
      expect(sync.Service!.StateDirectoryMode).toEqual(['0755']);
      expect(readFileSync(join(UNITS, 'tariff-till.sysusers'), 'utf8')).toMatch(/^u tariff-till /m);
    } finally {
      await service.stop();
    }
  });

  it('the one-shot runs time out, every unit says when it fails, and Documentation= names files of the install', async () => {
    // That each file is in the package (and the units too) is checked on the packed tarball (test/packed).
    const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8'));
    for (const name of readdirSync(UNITS).filter((file) => file.endsWith('.service'))) {
      const service = unit(name);
      if (!name.startsWith('tariff-failure@')) expect(service.Unit!.OnFailure, name).toEqual(['tariff-failure@%n.service']);
      if (service.Service!.Type?.[0] === 'oneshot' && !name.startsWith('tariff-failure@'))
        expect(service.Service!.TimeoutStartSec, name).toBeDefined();
      for (const url of service.Unit!.Documentation!.join(' ').split(/\s+/))
        expect(url.startsWith(`file:///opt/tariff/lib/node_modules/${pkg.name}/`), `${name}: ${url}`).toBe(true);
    }
  });
});
