import { chmodSync, existsSync, readFileSync, rmSync, statSync, truncateSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AuthorityServer } from '../helpers/authority-server.ts';
import { asRoot, cannotRunAsNobody, fill, readOnlyDisk, readOnlyFor, smallDisk, tariffAsNobody } from '../helpers/machine.ts';
import { REPO, runCli, type CliResult } from '../helpers/run-cli.ts';
import { startS3 } from '../helpers/s3-server.ts';
import { serveInProcess } from '../helpers/serve-in-process.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import { readBucketKey } from '../helpers/bucket-folder.ts';
import { describeS3, inS3Step } from '../helpers/s3-step.ts';

const SAMPLE = join(REPO, 'fixtures/sample/tariff');
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** What no fault message may hold: a stack, or the word that it is a bug. */
const NOT_A_BUG = /This is a bug|internal error|\n\s+at /;

/** A full tmpfs at `dir`, unmounted after the test. */
async function mounted(dir: string): Promise<void> {
  const disk = smallDisk(dir, 2 * 1024 * 1024);
  expect(disk, 'a tmpfs could not be mounted').not.toBeNull();
  cleanups.push(() => disk!.close());
  fill(dir);
}

/** The release after the published one, built beside it. */
async function builtNext(dataDir: string, cli: (args: string[]) => Promise<CliResult>): Promise<string> {
  const next = join(dataDir, 'next');
  const args = ['build', '--source', SAMPLE, '--date', '2026-12-01', '--out', next, '--previous', join(dataDir, 'build')];
  expect((await cli(args)).status).toBe(0);
  return next;
}

/** A folder with a published sample release in its bucket: what the faults below are met on. */
async function published(dataDir: string, env: Record<string, string> = {}) {
  const out = join(dataDir, 'build');
  const cli = (args: string[]) => runCli([...args, '--data-dir', dataDir], { env });
  expect((await cli(['build', '--source', SAMPLE, '--date', '2026-11-22', '--out', out])).status).toBe(0);
  expect((await cli(['publish', out])).status).toBe(0);
  return { out, cli };
}

describe.skipIf(!asRoot || inS3Step)('faults of the machine, named as such (needs root: another user, a small disk)', () => {
  it('a bucket folder on a read-only file system, or whose folder cannot be made there: named with its path, exit 1, never a bug', async () => {
    const dataDir = await tempDir();
    const out = join(dataDir, 'build');
    expect((await runCli(['build', '--source', SAMPLE, '--date', '2026-11-22', '--out', out, '--data-dir', dataDir])).status).toBe(0);
    const srv = join(await tempDir(), 'srv');
    const disk = readOnlyDisk(srv, 'tariff-bucket');
    expect(disk, 'a read-only tmpfs could not be mounted').not.toBeNull();
    cleanups.push(() => disk!.close());
    // A folder there, which nothing can be written into; a folder not there, which cannot be made.
    for (const [bucket, named] of [
      [join(srv, 'tariff-bucket'), join(srv, 'tariff-bucket')],
      [join(srv, 'missing', 'tariff-bucket'), join(srv, 'missing')],
    ]) {
      const published = await runCli(['publish', out, '--bucket', bucket!, '--data-dir', dataDir]);
      expect(published.status, bucket).toBe(1);
      expect(published.stderr).toContain(`tariff: ${named}`);
      expect(published.stderr).toContain('read-only file system');
      expect(published.stderr).toContain('ReadWritePaths=');
      expect(published.stderr).not.toMatch(NOT_A_BUG);
    }
  });

  it('a data dir the user cannot write: release and history import name the folder and the user, exit 1', async (context) => {
    const why = cannotRunAsNobody();
    if (why) {
      console.warn(`skipped: ${why}`);
      context.skip(why);
    }
    const base = await tempDir();
    chmodSync(base, 0o755);
    const locked = readOnlyFor(join(base, 'locked'));
    for (const args of [
      ['release', '--source-url', 'http://127.0.0.1:9/sigarette.xml', '--data-dir', join(locked, 'var')],
      ['history', 'import', join(SAMPLE, 'sigarette-2026-11-01.xml'), '--data-dir', join(locked, 'var')],
    ]) {
      const result = tariffAsNobody(args);
      expect(result.status, args.join(' ')).toBe(1);
      expect(result.stderr, args.join(' ')).toContain(`${join(locked, 'var')}`);
      expect(result.stderr, args.join(' ')).toContain('permission denied (EACCES)');
      expect(result.stderr, args.join(' ')).toContain('The user nobody cannot write');
      expect(result.stderr, args.join(' ')).not.toMatch(NOT_A_BUG);
    }
    const json = tariffAsNobody([
      'history',
      'import',
      join(SAMPLE, 'sigarette-2026-11-01.xml'),
      '--json',
      '--data-dir',
      join(locked, 'var'),
    ]);
    expect(JSON.parse(json.stdout).error).toMatchObject({ code: 'machine_fault', message: expect.not.stringMatching(NOT_A_BUG) });
  });

  it('a full bucket folder: publish exits 1 naming it, the current release unchanged and whole', async () => {
    const dataDir = await tempDir();
    const disk = smallDisk(join(dataDir, 'bucket'), 4 * 1024 * 1024);
    expect(disk, 'a tmpfs could not be mounted').not.toBeNull();
    cleanups.push(() => disk!.close());
    const { cli } = await published(dataDir);
    const before = readBucketKey(join(dataDir, 'bucket'), 'current.json')!;
    const next = join(dataDir, 'next');
    expect(
      (await cli(['build', '--source', SAMPLE, '--date', '2026-12-01', '--out', next, '--previous', join(dataDir, 'build')])).status,
    ).toBe(0);
    fill(join(dataDir, 'bucket'));
    const failed = await cli(['publish', next]);
    expect(failed.status).toBe(1);
    expect(failed.stderr).toContain(`${join(dataDir, 'bucket')}/`);
    expect(failed.stderr).toContain('no space left on the device (ENOSPC)');
    expect(failed.stderr).not.toMatch(NOT_A_BUG);
    expect(readBucketKey(join(dataDir, 'bucket'), 'current.json')!.equals(before)).toBe(true);
    expect((await cli(['verify', '--bucket', join(dataDir, 'bucket')])).status).toBe(0);
  });

  // One row per write of the table in docs/operations.md, "Faults of the machine": each names the
  // file or database it could not write, and says to free space on its disk.
  const FULL_DISKS: { write: string; status: number; run: (dataDir: string) => Promise<{ result: CliResult; path: string }> }[] = [
    {
      write: 'publish: the bucket folder',
      status: 1,
      run: async (dataDir) => {
        const bucket = join(dataDir, 'bucket');
        const disk = smallDisk(bucket, 4 * 1024 * 1024);
        expect(disk, 'a tmpfs could not be mounted').not.toBeNull();
        cleanups.push(() => disk!.close());
        const { cli } = await published(dataDir);
        const next = await builtNext(dataDir, cli);
        // Room for the writer lease and an upload or two, not for the whole release: it fills during the upload.
        fill(bucket);
        const filler = join(bucket, '.filler');
        truncateSync(filler, statSync(filler).size - 12 * 1024);
        return { result: await cli(['publish', next]), path: bucket };
      },
    },
    {
      write: 'publish: the price history, after the switch',
      status: 3,
      run: async (dataDir) => {
        const { cli } = await published(dataDir);
        const next = await builtNext(dataDir, cli);
        const history = join(dataDir, 'bucket', 'history');
        await mounted(history);
        return { result: await cli(['publish', next]), path: history };
      },
    },
    {
      write: 'history import: the bucket folder',
      status: 1,
      run: async (dataDir) => {
        const bucket = join(dataDir, 'bucket');
        await mounted(bucket);
        const result = await runCli(['history', 'import', join(SAMPLE, 'sigarette-2026-11-01.xml'), '--data-dir', dataDir]);
        return { result, path: bucket };
      },
    },
    {
      write: 'the registry: an account created',
      status: 1,
      run: async (dataDir) => {
        const registryDir = join(dataDir, 'registry');
        const env = { TARIFF_REGISTRY: join(registryDir, 'registry.db') };
        const disk = smallDisk(registryDir, 2 * 1024 * 1024);
        expect(disk, 'a tmpfs could not be mounted').not.toBeNull();
        cleanups.push(() => disk!.close());
        expect((await runCli(['accounts', 'create', 'uno@example.it', '--type', 'User', '--data-dir', dataDir], { env })).status).toBe(0);
        fill(registryDir);
        const many = Array.from({ length: 200 }, (_, i) => `'${i}'`).join('');
        const result = await runCli(['accounts', 'create', `due${many.length}@example.it`, '--type', 'User', '--data-dir', dataDir], {
          env,
        });
        return { result, path: join(registryDir, 'registry.db') };
      },
    },
  ];

  it.each(FULL_DISKS.map((row) => [row.write, row] as const))('a full disk at %s: the path named, and free space said', async (_, row) => {
    const dataDir = await tempDir();
    const { result, path } = await row.run(dataDir);
    expect(result.status, result.stderr).toBe(row.status);
    expect(result.stderr).toMatch(/no space left on the device \(ENOSPC\)|disk is full|SQLITE_FULL|SQLITE_IOERR/);
    expect(result.stderr).toContain(path);
    expect(result.stderr).toMatch(new RegExp(`[Ff]ree space on the disk holding ${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
    expect(result.stderr).not.toContain('Check the bucket URI');
    expect(result.stderr).not.toMatch(NOT_A_BUG);
  });

  it('the registry’s disk full: /v1 answers 503 with Retry-After, never 500, and recovers once there is room', async () => {
    const dataDir = await tempDir();
    await published(dataDir);
    const registryDir = join(dataDir, 'registry');
    const disk = smallDisk(registryDir, 2 * 1024 * 1024);
    expect(disk, 'a tmpfs could not be mounted').not.toBeNull();
    cleanups.push(() => disk!.close());
    const registry = { TARIFF_REGISTRY: join(registryDir, 'registry.db') };
    const account = await runCli(['accounts', 'create', 'cassa@example.it', '--type', 'User', '--data-dir', dataDir], { env: registry });
    expect(account.status).toBe(0);
    const key = JSON.parse(
      (await runCli(['keys', 'create', 'cassa@example.it', '--json', '--data-dir', dataDir], { env: registry })).stdout,
    ).key;
    const service = await serveInProcess(dataDir, registry);
    cleanups.push(() => service.stop());
    const version = () => fetch(`${service.url}/v1/version`, { headers: { authorization: `Bearer ${key}` } });
    expect((await version()).status).toBe(200);
    fill(registryDir);
    const statuses = [];
    for (let i = 0; i < 5; i += 1) {
      const answer = await version();
      statuses.push(answer.status);
      if (answer.status === 503) {
        expect(answer.headers.get('retry-after')).toBe('30');
        expect(await answer.json()).toMatchObject({ error: 'service_unavailable', retryAfterSeconds: 30 });
      }
    }
    expect(statuses).not.toContain(500);
    expect(statuses).toContain(503);
    expect(service.log).toContainEqual(expect.objectContaining({ event: 'request.unavailable', condition: 'database_full' }));
    expect(service.log.filter((entry) => entry.event === 'request.error')).toEqual([]);
    // Room again: the next request is answered.
    rmSync(join(registryDir, '.filler'));
    expect((await version()).status).toBe(200);
  });
});

describeS3('the S3 server stopped during tariff release', () => {
  it('switches nothing: the current release stays, whole, and the next run publishes', async () => {
    const s3 = await startS3();
    const authority = await new AuthorityServer().start();
    cleanups.push(
      () => s3.close(),
      () => authority.close(),
    );
    authority.lists.set('/sigarette.xml', { body: readFileSync(join(SAMPLE, 'sigarette-2026-11-01.xml')) });
    const dataDir = await tempDir();
    const bucket = `s3://${s3.bucket}/stopped`;
    // A real process each: the writer lock the failed run could not let go names a process gone by the next run.
    const release = (endpoint: string, date: string) =>
      runCli(
        [
          'release',
          '--source-url',
          authority.url('/sigarette.xml'),
          '--bucket',
          bucket,
          '--date',
          date,
          '--allow-other-date',
          '--data-dir',
          dataDir,
        ],
        {
          env: {
            ...s3.env,
            AWS_ENDPOINT_URL_S3: endpoint,
            // One try: the store that stopped refuses at once. Its usual bounds otherwise: a busy store is slow, not gone.
            TARIFF_S3_ATTEMPTS: '1',
          },
          process: true,
        },
      );
    expect((await release(s3.endpoint, '2026-11-22')).status).toBe(0);
    authority.lists.set('/sigarette.xml', { body: readFileSync(join(SAMPLE, 'sigarette-2026-12-01.xml')) });
    const dying = await s3.proxy();
    cleanups.push(() => dying.close());
    // Gone after the first file of the new release is uploaded.
    dying.stopAfter((method, key) => method === 'PUT' && key.includes('/releases/') && key.endsWith('.gz'));
    const failed = await release(dying.url, '2026-12-01');
    expect(failed.status).toBe(1);
    expect(failed.stderr).toContain('the current release was not changed');
    expect(failed.stderr).not.toMatch(NOT_A_BUG);
    const verified = await runCli(['verify', '--bucket', bucket, '--data-dir', dataDir], { env: s3.env });
    expect(verified.status).toBe(0);
    expect(verified.stdout).toContain('20261101.1');
    expect(existsSync(join(dataDir, 'releases'))).toBe(true);
    const next = await release(s3.endpoint, '2026-12-01');
    expect(next.status, next.stderr).toBe(0);
    expect(next.stdout).toMatch(/^published 20261201\.\d \(was 20261101\.1\)/);
  });
});
