import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './machine.ts';

export interface PrivatePostgres {
  url: string;
  stop(): void;
  start(): void;
  close(): void;
}

/** Debian's PostgreSQL binaries (initdb, pg_ctl), the newest version installed; null when there are none. */
function binaries(): string | null {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return null;
  const version = readdirSync(root)
    .sort((a, b) => Number(a) - Number(b))
    .at(-1);
  const bin = version ? join(root, version, 'bin') : null;
  return bin && existsSync(join(bin, 'initdb')) ? bin : null;
}

/**
 * A PostgreSQL cluster of the test's own, in a temporary folder on a free port, run as the
 * `postgres` user (the server refuses root), so a test can stop and start it while the suite's
 * shared cluster stays up. Null where it cannot be made (no PostgreSQL, not root).
 */
export async function privatePostgres(): Promise<PrivatePostgres | null> {
  const bin = binaries();
  if (!bin || process.getuid?.() !== 0 || spawnSync('id', ['postgres']).status !== 0) return null;
  const dir = mkdtempSync(join(tmpdir(), 'tariff-pg-'));
  const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }));
  const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }));
  chownSync(dir, uid, gid);
  const data = join(dir, 'data');
  const port = await freePort();
  const asPostgres = (command: string, args: string[]) =>
    execFileSync('runuser', ['-u', 'postgres', '--', join(bin, command), ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  asPostgres('initdb', ['-D', data, '-A', 'trust', '-U', 'tariff', '--no-sync']);
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`;
  const start = () => asPostgres('pg_ctl', ['-D', data, '-o', options, '-w', '-s', '-l', join(dir, 'log'), 'start']);
  const stop = () => asPostgres('pg_ctl', ['-D', data, '-m', 'fast', '-w', '-s', 'stop']);
  start();
  return {
    url: `postgres://tariff@127.0.0.1:${port}/postgres`,
    start,
    stop,
    close: () => {
      spawnSync('runuser', ['-u', 'postgres', '--', join(bin, 'pg_ctl'), '-D', data, '-m', 'immediate', '-w', '-s', 'stop']);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
