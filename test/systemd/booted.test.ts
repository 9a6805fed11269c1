import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthorityServer } from '../helpers/authority-server.ts';
import { TEST_BACKUP_RECIPIENT } from '../helpers/backup-key.ts';
import { boot, cannotBoot, debianRoot, type Booted } from '../helpers/booted-debian.ts';
import { freePort } from '../helpers/machine.ts';
import { REPO } from '../helpers/run-cli.ts';
import { waitFor } from '../helpers/wait-for.ts';

// The units of deploy/systemd as an administrator runs them: a Debian 12 system booted with its own
// systemd, the tarball and the units installed by the very shell blocks of docs/deployment.md, the
// sample settings file, timers, failures, stops and a reboot (docs/deployment.md, "systemd").
const why = cannotBoot();
const LIST = join(REPO, 'fixtures/adm/listino-liquidi-2026-11-01.pdf');

/** The shell block of docs/deployment.md under `<!-- systemd: name -->`, as an administrator copies it. */
function documented(name: string): string {
  const page = readFileSync(join(REPO, 'docs/deployment.md'), 'utf8');
  const block = new RegExp(`<!-- systemd: ${name} -->\\n\`\`\`sh\\n([\\s\\S]*?)\`\`\``).exec(page);
  if (!block) throw new Error(`docs/deployment.md has no "systemd: ${name}" block`);
  return block[1]!;
}

let work: string;
let root: string;
let system: Booted | null = null;
let authority: AuthorityServer;
let port: number;

/** Runs `command` inside and expects it to succeed: its output. */
async function ok(command: string): Promise<string> {
  const ran = await system!.sh(command);
  expect(ran.status, `${command}\n${ran.stdout}${ran.stderr}`).toBe(0);
  return ran.stdout;
}

/** Sets one line of /etc/tariff/tariff.env, as an administrator edits it. */
const setting = (name: string, value: string) => ok(`sed -i 's|^#\\?${name}=.*|${name}=${value}|' /etc/tariff/tariff.env`);

/** A unit's properties, as `systemctl show` says them. */
async function shown(unit: string, ...properties: string[]): Promise<Record<string, string>> {
  const out = await ok(`systemctl show ${unit} ${properties.map((p) => `-p ${p}`).join(' ')}`);
  return Object.fromEntries(
    out
      .trim()
      .split('\n')
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );
}

/** GET on the service the container runs, from this machine (they share the loopback). */
const readyz = () =>
  fetch(`http://127.0.0.1:${port}/readyz`).then(
    (r) => r.status,
    () => 0,
  );

describe.skipIf(why !== null && !process.env.CI)(`deploy/systemd under a booted systemd${why ? ` (skipped: ${why})` : ''}`, () => {
  beforeAll(async () => {
    if (why) throw new Error(`cannot boot a container here: ${why}`);
    work = mkdtempSync('/var/tmp/tariff-booted-');
    const packed = execFileSync('npm', ['pack', '--json', '--pack-destination', work], { cwd: REPO, encoding: 'utf8' });
    const tarball = (JSON.parse(packed) as { filename: string }[])[0]!.filename;
    root = join(work, 'root');
    execFileSync('cp', ['-a', '--reflink=auto', debianRoot(), root]);
    // npm for the documented install: this machine's, bound in (the root has no Node.js; the package brings its own).
    mkdirSync(join(root, 'usr/local/lib/node_modules/npm'), { recursive: true });
    symlinkSync('../lib/node_modules/npm/bin/npm-cli.js', join(root, 'usr/local/bin/npm'));
    const npmRoot = execFileSync('npm', ['root', '--global'], { encoding: 'utf8' }).trim();
    // This machine's npm settings (its global and user files) as root's, which npm reads whatever --prefix says.
    const npmrc = ['globalconfig', 'userconfig']
      .map((name) => execFileSync('npm', ['config', 'get', name], { encoding: 'utf8' }).trim())
      .filter((file) => existsSync(file))
      .map((file) => readFileSync(file, 'utf8'))
      .join('\n');
    writeFileSync(join(root, 'root/.npmrc'), npmrc, { mode: 0o600 });
    authority = await new AuthorityServer().start();
    authority.lists.set('/liquidi.pdf', { body: readFileSync(LIST), contentType: 'application/pdf' });
    port = await freePort();
    system = await boot(root, [
      { from: process.execPath, to: '/usr/local/bin/node', readOnly: true },
      { from: join(npmRoot, 'npm'), to: '/usr/local/lib/node_modules/npm', readOnly: true },
      // npm as this machine reaches the registry: its cache and the authorities it trusts (its settings below).
      { from: join(process.env.HOME ?? '/root', '.npm'), to: '/root/.npm' },
      ...['/etc/ssl/certs/ca-certificates.crt']
        .filter((file) => existsSync(file))
        .map((file) => ({ from: file, to: file, readOnly: true })),
      { from: work, to: '/srv/install' },
    ]);
    // The documented install, from the folder holding the tarball.
    await ok(`cd /srv/install && ${documented('install').replace('./tobacco-tariff-dataset-*.tgz', `./${tarball}`)}`);
    await setting('TARIFF_SOURCE_URLS', authority.url('/liquidi.pdf'));
    await setting('TARIFF_PORT', String(port));
    await setting('TARIFF_BACKUP_RECIPIENTS', TEST_BACKUP_RECIPIENT);
    await ok(documented('units'));
  }, 900_000);

  afterAll(async () => {
    await system?.close();
    await authority?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  }, 300_000);

  it('the release unit publishes, serve answers /readyz, the backup unit makes an encrypted backup', async () => {
    expect(
      (await ok('systemctl is-enabled tariff-release.timer tariff-registry-backup.timer tariff-serve.service')).trim().split('\n'),
    ).toEqual(['enabled', 'enabled', 'enabled']);
    await ok('systemctl start tariff-release.service');
    expect(await shown('tariff-release.service', 'Result', 'ExecMainStatus')).toEqual({ Result: 'success', ExecMainStatus: '0' });
    expect(await ok('ls /var/lib/tariff-bucket/')).toContain('current.json');
    await waitFor(async () => (await readyz()) === 200, 'serve to be ready with the release', 60_000);
    await ok('systemctl start tariff-registry-backup.service');
    expect((await shown('tariff-registry-backup.service', 'Result')).Result).toBe('success');
    const backups = await ok('ls /var/lib/tariff-bucket/backups/registry/');
    expect(backups).toMatch(/registry-.*\.sqlite\.gz\.age/);
  });

  it('a till’s sync installs as its own user, files every user reads', async () => {
    // An account and key made by the command line as the units' user, on the same data dir.
    const made = await ok(
      'systemd-run --quiet --wait --pipe -p DynamicUser=yes -p User=tariff -p StateDirectory=tariff -p EnvironmentFile=/etc/tariff/tariff.env ' +
        '-E TARIFF_DATA_DIR=/var/lib/tariff sh -c "/opt/tariff/bin/tariff accounts create cassa@example.it --type User >/dev/null && /opt/tariff/bin/tariff keys create cassa@example.it --json"',
    );
    const key = (JSON.parse(made) as { key: string }).key;
    await ok(`umask 077 && printf '%s\\n' '${key}' > /etc/tariff/api-key`);
    await setting('TARIFF_API_URL', `http://127.0.0.1:${port}/v1`);
    await ok(documented('till'));
    await ok('systemctl start tariff-sync.service');
    expect((await shown('tariff-sync.service', 'Result')).Result).toBe('success');
    // dataset.sqlite is a link to the installed version's file: that file is the till's, and every user reads it.
    const listing = await ok('stat -L -c "%U %a %n" /var/lib/tariff-till/dataset.sqlite /var/lib/tariff-till');
    expect(listing).toBe('tariff-till 644 /var/lib/tariff-till/dataset.sqlite\ntariff-till 755 /var/lib/tariff-till\n');
  });

  it('a failed release says why at error priority, the product’s line and OnFailure’s; a usage error is not restarted', async () => {
    authority.lists.set('/gone.pdf', { body: '', status: 404 });
    await setting('TARIFF_SOURCE_URLS', authority.url('/gone.pdf'));
    expect((await system!.sh('systemctl start tariff-release.service')).status).not.toBe(0);
    const errors = () => ok('journalctl -p err --no-pager -o cat');
    // OnFailure= runs its unit once the failure is recorded: its line comes a moment after.
    await waitFor(async () => (await errors()).includes('tariff-release.service failed'), 'OnFailure’s line at error priority', 60_000);
    expect(await errors()).toMatch(/^tariff: .*gone\.pdf/m);
    await setting('TARIFF_SOURCE_URLS', authority.url('/liquidi.pdf'));

    await setting('TARIFF_PORT', 'not-a-port');
    await system!.sh('systemctl restart tariff-serve.service');
    await waitFor(
      async () => (await shown('tariff-serve.service', 'ActiveState')).ActiveState === 'failed',
      'serve to fail on its setting',
      30_000,
    );
    expect(await shown('tariff-serve.service', 'ExecMainStatus', 'NRestarts')).toEqual({ ExecMainStatus: '2', NRestarts: '0' });
    await setting('TARIFF_PORT', String(port));
    await ok('systemctl reset-failed tariff-serve.service && systemctl start tariff-serve.service');
    await waitFor(async () => (await readyz()) === 200, 'serve to be ready again', 60_000);
  });

  it('a stop during serve’s start-up is clean: no failure, no OnFailure line', async () => {
    const before = (await ok('journalctl -p err --no-pager -o cat')).split('tariff-serve.service failed').length;
    for (let round = 0; round < 3; round += 1) {
      await ok('systemctl restart --no-block tariff-serve.service');
      await ok('systemctl stop tariff-serve.service');
      expect(await shown('tariff-serve.service', 'Result', 'ActiveState')).toEqual({ Result: 'success', ActiveState: 'inactive' });
    }
    expect((await ok('journalctl -p err --no-pager -o cat')).split('tariff-serve.service failed').length).toBe(before);
    await ok('systemctl start tariff-serve.service');
  });

  it('comes back after a reboot: serve ready, the timers waiting', async () => {
    await system!.reboot();
    await waitFor(async () => (await readyz()) === 200, 'serve after the reboot', 120_000);
    const timers = await ok('systemctl list-timers --all --no-legend --no-pager');
    expect(timers).toContain('tariff-release.timer');
    expect(timers).toContain('tariff-registry-backup.timer');
    expect(timers).toContain('tariff-sync.timer');
  });
});
