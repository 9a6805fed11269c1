import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { waitFor } from './wait-for.ts';

/**
 * A Debian 12 system with systemd as its init, booted in a container of this machine
 * (systemd-nspawn): what an administrator boots, for the units of deploy/systemd. Its root is made
 * from Debian's packages by mmdebstrap once and kept (CACHE), then copied for each test.
 */
export const CACHE = '/var/cache/tariff-test/debian-bookworm-systemd';

/** Why a booted system cannot be had here, or null: the test skips with this reason only off CI. */
export function cannotBoot(): string | null {
  if (process.getuid?.() !== 0) return 'booting a container needs root';
  for (const tool of ['systemd-nspawn', 'mmdebstrap', 'nsenter'])
    if (spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0) return `${tool} is not installed (.ci/run installs it)`;
  return null;
}

/** The cached root, made first when missing (about half a minute: Debian's packages over the network). */
export function debianRoot(): string {
  if (existsSync(join(CACHE, 'usr/lib/systemd/systemd'))) return CACHE;
  mkdirSync(join(CACHE, '..'), { recursive: true });
  const making = `${CACHE}.making-${process.pid}`;
  rmSync(making, { recursive: true, force: true });
  const made = spawnSync('mmdebstrap', ['--variant=minbase', '--include=systemd,systemd-sysv,dbus,ca-certificates', 'bookworm', making], {
    encoding: 'utf8',
    timeout: 600_000,
  });
  if (made.status !== 0) throw new Error(`mmdebstrap failed: ${made.stderr.slice(-2000)}`);
  rmSync(CACHE, { recursive: true, force: true });
  renameSync(making, CACHE);
  return CACHE;
}

export interface Booted {
  /** Runs a shell command line inside, as root with a login's PATH: its status and output. */
  sh(command: string): Promise<{ status: number; stdout: string; stderr: string }>;
  /** Reboots it (systemctl reboot) and waits until it is up again. */
  reboot(): Promise<void>;
  /** Powers it off; never fails. */
  close(): Promise<void>;
}

const PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** A file of /proc as text, or '' when the process (or the file) is gone. */
const procText = (path: string): string => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
};

/** The first descendant of `pid` that runs systemd: the container's init. */
function initOf(pid: number): number | null {
  const queue = [pid];
  for (let seen = 0; queue.length > 0 && seen < 64; seen += 1) {
    const next = queue.shift()!;
    if (next !== pid && procText(`/proc/${next}/comm`).trim() === 'systemd') return next;
    // Gone meanwhile: no tasks.
    const tasks = (() => {
      try {
        return readdirSync(`/proc/${next}/task`);
      } catch {
        return [];
      }
    })();
    for (const task of tasks) queue.push(...procText(`/proc/${next}/task/${task}/children`).split(/\s+/).filter(Boolean).map(Number));
  }
  return null;
}

/**
 * Boots `root` (a copy of debianRoot()) with systemd-nspawn: the host's network (services on its
 * loopback are reachable both ways), `binds` of host paths, no registration with a host systemd.
 * Resolves once systemd says the system is running (or degraded: a unit of the image failed).
 */
export async function boot(root: string, binds: { from: string; to: string; readOnly?: boolean }[]): Promise<Booted> {
  let nspawn: ChildProcess | undefined;
  let init = 0;
  let console = '';
  const start = async () => {
    nspawn = spawn(
      'systemd-nspawn',
      [
        '-D',
        root,
        '--boot',
        '--register=no',
        '--keep-unit',
        '--console=passive',
        '-q',
        ...binds.map((bind) => `--bind${bind.readOnly ? '-ro' : ''}=${bind.from}:${bind.to}`),
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const container = nspawn;
    container.stdout!.on('data', (chunk: Buffer) => (console += chunk.toString()));
    container.stderr!.on('data', (chunk: Buffer) => (console += chunk.toString()));
    let exited = false;
    container.once('exit', () => (exited = true));
    await waitFor(
      () => {
        if (exited) throw new Error(`systemd-nspawn exited: ${console.slice(-2000)}`);
        init = initOf(container.pid!) ?? 0;
        return init > 0;
      },
      'the container’s systemd',
      60_000,
    );
    // systemd's own socket first (systemctl talks to it), then the system up.
    await waitFor(async () => (await sh('test -S /run/systemd/private')).status === 0, 'systemd’s socket', 60_000);
    const up = await sh('systemctl is-system-running --wait');
    if (!/running|degraded/.test(up.stdout)) throw new Error(`the container did not come up: ${up.stdout}${up.stderr}`);
  };
  const sh = (command: string) =>
    new Promise<{ status: number; stdout: string; stderr: string }>((resolve) =>
      execFile(
        'nsenter',
        [
          '--target',
          String(init),
          '--mount',
          '--uts',
          '--ipc',
          '--net',
          '--pid',
          '--',
          '/usr/bin/env',
          '-i',
          `PATH=${PATH}`,
          'HOME=/root',
          'LANG=C.UTF-8',
          '/bin/bash',
          '-e',
          '-o',
          'pipefail',
          '-c',
          command,
        ],
        { encoding: 'utf8', maxBuffer: 64 << 20, timeout: 600_000 },
        (error, stdout, stderr) => resolve({ status: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
      ),
    );
  // A guard against a container that does not go down: SIGTERM to nspawn (an orderly shutdown), then SIGKILL.
  const down = (command: string) =>
    new Promise<void>((resolve) => {
      const container = nspawn!;
      if (container.exitCode !== null || container.signalCode !== null) return resolve();
      const terminate = setTimeout(() => container.kill('SIGTERM'), 90_000);
      const kill = setTimeout(() => container.kill('SIGKILL'), 150_000);
      container.once('exit', () => {
        clearTimeout(terminate);
        clearTimeout(kill);
        resolve();
      });
      void sh(command);
    });
  try {
    await start();
  } catch (error) {
    // Never a container left running after a failed boot.
    nspawn!.kill('SIGKILL');
    throw error;
  }
  return {
    sh,
    async reboot() {
      // A reboot inside ends systemd-nspawn (it exits for the caller to start it again, as a machine's firmware would).
      await down('systemctl reboot');
      await start();
    },
    async close() {
      await down('systemctl poweroff');
    },
  };
}
