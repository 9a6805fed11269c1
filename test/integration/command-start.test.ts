import { execFile } from 'node:child_process';
import { chmodSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SERVICE_NODE_FLAGS } from '../../src/service/service-runtime.ts';
import { CLI, REPO } from '../helpers/run-cli.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const VERSION = (JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string }).version;

/** Runs `command` (a program, not a script handed to a node) with exactly this environment. */
function run(command: string, args: string[], env: Record<string, string>): Promise<{ status: number; stdout: string; stderr: string }> {
  return new Promise((resolve) =>
    execFile(command, args, { env }, (error, stdout, stderr) =>
      resolve({ status: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    ),
  );
}

describe('how the command starts', () => {
  it('./bin/tariff.js run as a program, or through links to it, runs on the bundled Node.js and never on the node PATH finds', async () => {
    const dir = await tempDir();
    // A node first on PATH that must never be run: the file's sh line execs the launcher, which execs the bundled runtime.
    mkdirSync(join(dir, 'bin'));
    writeFileSync(join(dir, 'bin', 'node'), '#!/bin/sh\necho "the machine node ran" >&2\nexit 97\n', { mode: 0o755 });
    symlinkSync(CLI, join(dir, 'tariff-link'));
    symlinkSync(join(dir, 'tariff-link'), join(dir, 'tariff-link-of-link'));
    const env = { PATH: `${join(dir, 'bin')}:/usr/bin:/bin`, HOME: dir };
    for (const program of [CLI, join(dir, 'tariff-link'), join(dir, 'tariff-link-of-link')])
      expect(await run(program, ['--version'], env)).toEqual({
        status: 0,
        stdout: `${VERSION} (Node.js ${process.versions.node})\n`,
        stderr: '',
      });
  });

  it("keeps V8's compiled code in the user's own cache folder, and never in one another user may write", async () => {
    const own = await tempDir();
    const env = { PATH: process.env.PATH!, XDG_CACHE_HOME: own };
    expect((await run(process.execPath, [CLI, '--version'], env)).status).toBe(0);
    const cache = join(own, 'tariff', 'compile-cache');
    expect(statSync(cache).mode & 0o777).toBe(0o700);
    expect(readdirSync(cache)).not.toEqual([]);

    // Group- and world-writable: its contents would become another user's code. Not used.
    const shared = await tempDir();
    mkdirSync(join(shared, 'tariff'));
    chmodSync(join(shared, 'tariff'), 0o777);
    expect((await run(process.execPath, [CLI, '--version'], { ...env, XDG_CACHE_HOME: shared })).status).toBe(0);
    expect(readdirSync(join(shared, 'tariff', 'compile-cache'))).toEqual([]);
  });

  it("runs a service on flags the bundled runtime knows: one it did not would stop the service's start", async () => {
    // V8's own flags, not Node.js's: an upgrade of the runtime may drop one, and `node` then refuses to start.
    expect(await run(process.execPath, [...SERVICE_NODE_FLAGS, '-e', 'process.stdout.write("ok")'], { PATH: process.env.PATH! })).toEqual({
      status: 0,
      stdout: 'ok',
      stderr: '',
    });
  });
});
