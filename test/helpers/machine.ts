import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { isAbsolute, join, relative } from 'node:path';
import { CLI, REPO } from './run-cli.ts';

/** Root can mount a tmpfs and run a command as another user: these machines and CI can; elsewhere the tests that need it are skipped. */
export const asRoot = process.getuid?.() === 0;

/**
 * A tmpfs of `bytes` mounted at `dir` (created), to fill a disk for real; `close()` unmounts it.
 * Null when it cannot be mounted (not root, or no mount allowed): the caller skips with that reason.
 */
export function smallDisk(dir: string, bytes: number): { close: () => void } | null {
  mkdirSync(dir, { recursive: true });
  const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${bytes}`, 'tmpfs', dir]);
  if (mounted.status !== 0) return null;
  return { close: () => void spawnSync('umount', ['-l', dir]) };
}

/**
 * A read-only file system at `dir` (a tmpfs holding `inside`, an empty folder, remounted read-only),
 * as a unit under ProtectSystem=strict sees every path it was not given; `close()` unmounts it.
 * Null when it cannot be mounted.
 */
export function readOnlyDisk(dir: string, inside: string): { close: () => void } | null {
  const disk = smallDisk(dir, 1024 * 1024);
  if (!disk) return null;
  mkdirSync(join(dir, inside));
  if (spawnSync('mount', ['-o', 'remount,ro', dir]).status !== 0) {
    disk.close();
    return null;
  }
  return disk;
}

/** Fills a disk until one more byte does not fit, leaving `free` bytes at most. */
export function fill(dir: string, free = 0): void {
  const path = join(dir, '.filler');
  const stats = execFileSync('df', ['--output=avail', '-B1', dir], { encoding: 'utf8' }).split('\n')[1]!.trim();
  writeFileSync(path, Buffer.alloc(Math.max(0, Number(stats) - free)));
  // tmpfs counts in pages: what is left after the file is filled too, byte by byte would be slow.
  for (let chunk = 4096; chunk >= 1; chunk >>= 1) {
    try {
      for (;;) writeFileSync(path, Buffer.alloc(chunk), { flag: 'a' });
    } catch {
      // full at this size: try a smaller one
    }
  }
}

const AS_NOBODY = ['setpriv', '--reuid=nobody', '--regid=nogroup', '--clear-groups', '--'];

/** Whether `nobody` can run this Node.js on this script (every folder above both searchable by it). */
const nobodyCanRun = (node: string, script: string) => {
  const check = 'require("fs").accessSync(process.argv[1], 4)';
  return spawnSync(AS_NOBODY[0]!, [...AS_NOBODY.slice(1), node, '-e', check, script]).status === 0;
};

/**
 * The command and the Node.js that run it, where `nobody` can read them: the checkout itself, or,
 * when it lies under a folder only root may enter (a clone in a fresh `mktemp -d`, or in /root),
 * the checkout bound read-only at a temporary folder anyone may enter (unmounted when the test
 * process ends; arguments naming files of the checkout are given as seen there). A string says
 * why neither can be: the tests that need it skip, saying so.
 */
function nobodyRunnable(): { node: string; cli: string; inView: (path: string) => string } | string {
  if (!asRoot) return 'not root: cannot run a command as another user';
  if (nobodyCanRun(process.execPath, CLI)) return { node: process.execPath, cli: CLI, inView: (path) => path };
  const view = mkdtempSync(join(tmpdir(), 'tariff-checkout-'));
  chmodSync(view, 0o755);
  const bound = spawnSync('mount', ['--bind', '-o', 'ro', REPO, view]);
  if (bound.status !== 0) {
    rmdirSync(view);
    return `the checkout ${REPO} is not readable by nobody and cannot be bound elsewhere (${bound.stderr.toString().trim()})`;
  }
  process.once('exit', () => {
    spawnSync('umount', ['-l', view]);
    rmdirSync(view);
  });
  // Only an absolute path inside the checkout is moved (a URL or a relative name is not a path of it).
  const inView = (path: string) => (isAbsolute(path) && !relative(REPO, path).startsWith('..') ? join(view, relative(REPO, path)) : path);
  const runnable = { node: inView(process.execPath), cli: inView(CLI), inView };
  return nobodyCanRun(runnable.node, runnable.cli)
    ? runnable
    : `nobody cannot run ${runnable.node} (the Node.js running the tests lies in a folder only root may enter)`;
}

let runnable: ReturnType<typeof nobodyRunnable> | undefined;

/** Why the command cannot be run as `nobody` here (the tests that need it are skipped, printing this), or null when it can. */
export function cannotRunAsNobody(): string | null {
  runnable ??= nobodyRunnable();
  return typeof runnable === 'string' ? runnable : null;
}

/** Runs `tariff` as the unprivileged user `nobody`, as an operator's cron would under its own account. */
export function tariffAsNobody(
  args: string[],
  env: Record<string, string> = {},
): { status: number | null; stdout: string; stderr: string } {
  runnable ??= nobodyRunnable();
  if (typeof runnable === 'string') throw new Error(runnable);
  const result = spawnSync(AS_NOBODY[0]!, [...AS_NOBODY.slice(1), runnable.node, runnable.cli, ...args.map(runnable.inView)], {
    encoding: 'utf8',
    env: { ...process.env, HOME: '/tmp', NO_COLOR: '1', ...env },
    timeout: 30_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** A folder `nobody` can read and enter but not write, owned by root. */
export function readOnlyFor(dir: string): string {
  mkdirSync(dir, { recursive: true });
  chownSync(dir, 0, 0);
  chmodSync(dir, 0o755);
  return dir;
}

/** A free TCP port on 127.0.0.1. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}
