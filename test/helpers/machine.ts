import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { CLI } from './run-cli.ts';

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

/** Runs `tariff` as the unprivileged user `nobody`, as an operator's cron would under its own account. */
export function tariffAsNobody(
  args: string[],
  env: Record<string, string> = {},
): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync('setpriv', ['--reuid=nobody', '--regid=nogroup', '--clear-groups', '--', process.execPath, CLI, ...args], {
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
