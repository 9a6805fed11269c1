import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { S3Bucket } from '../../src/storage/s3-bucket.ts';
import { AuthorityServer } from '../helpers/authority-server.ts';
import { CLI, onDay, REPO, runCli, type CliResult } from '../helpers/run-cli.ts';
import { startS3, type S3Stand } from '../helpers/s3-server.ts';
import { tempDir } from '../helpers/temp-dir.ts';

// `tariff release --quiet` as the documented crontab runs it: no terminal, no standard input, only
// the crontab's environment, an S3 bucket. cron mails whatever is printed: the output is exact.
const SAMPLE = join(REPO, 'fixtures/sample/tariff');
const VERSION = (JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string }).version;
const LISTS = ['altri-tabacchi-2026-06-01.xml', 'liquidi-2026-06-01.xml', 'sigarette-2026-11-01.xml'];

let s3: S3Stand;
let authority: AuthorityServer;
let dataDir: string;

beforeAll(async () => {
  s3 = await startS3();
  authority = await new AuthorityServer().start();
  dataDir = await tempDir();
  for (const name of LISTS) authority.lists.set(`/${name}`, { body: readFileSync(join(SAMPLE, name)) });
});
afterAll(async () => {
  await authority.close();
  await s3.close();
});

/** A crontab line's process: stdin closed, stdout and stderr pipes, the crontab's variables and cron's own few. */
function cronJob(args: string[], extra: Record<string, string> = {}, how: { inProcess?: boolean } = {}): Promise<CliResult> {
  const env = {
    PATH: process.env.PATH!,
    HOME: dataDir,
    SHELL: '/bin/sh',
    LOGNAME: 'tariff',
    TARIFF_DATA_DIR: dataDir,
    TARIFF_BUCKET: `s3://${s3.bucket}/prod`,
    TARIFF_SOURCE_URLS: LISTS.map((name) => authority.url(`/${name}`)).join(' '),
    // The crontab's clock, pinned to the day of the sample tariff.
    ...onDay('2026-11-22'),
    ...s3.env,
    ...extra,
  };
  if (how.inProcess) return runCli(args, { env });
  return new Promise((resolve) => {
    const child = execFile(process.execPath, [CLI, ...args], { cwd: REPO, env }, (error, stdout, stderr) =>
      resolve({ status: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
    child.stdin?.end();
  });
}

const cron = (args: string[], extra: Record<string, string> = {}) => cronJob(args, extra);

describe('tariff release from cron, on S3', () => {
  it('prints one line when it publishes, nothing when nothing changed, and the reason on stderr when a list fails', async () => {
    expect(await cron(['release', '--quiet'])).toEqual({
      status: 0,
      stdout: 'published 20261101.1 (was none)\n',
      stderr: '',
    });
    expect(await cron(['release', '--quiet'])).toEqual({ status: 0, stdout: '', stderr: '' });
    // Monitoring from the same crontab: verify takes TARIFF_BUCKET as releases does (what is checked is the bucket it reads: in-process).
    expect(await cronJob(['verify'], {}, { inProcess: true })).toMatchObject({
      status: 0,
      stdout: expect.stringMatching(/^ok 20261101\.1: json, sqlite and docdb match/),
    });
    expect(await cronJob(['verify', '20261101.1'], {}, { inProcess: true })).toMatchObject({ status: 0 });

    authority.lists.set('/liquidi-2026-06-01.xml', { body: '', status: 404 });
    const failed = await cron(['release', '--quiet']);
    expect(failed.status).toBe(1);
    expect(failed.stdout).toBe('');
    const url = authority.url('/liquidi-2026-06-01.xml');
    expect(failed.stderr).toBe(
      `tariff: ${url} failed: ${url}: the server answered HTTP 404; keeping the last snapshot\n` +
        `tariff: unchanged 20261101.1, but 1 list failed: ${url} (HTTP 404)\n`,
    );
  });

  it('repairs a damaged current release byte for byte, and never moves the current version back', async () => {
    for (const name of LISTS) authority.lists.set(`/${name}`, { body: readFileSync(join(SAMPLE, name)) });
    // The output is the cron job's; what is checked here is the repair, so the runs need not be processes of their own.
    const cron = (args: string[], extra: Record<string, string>) => cronJob(args, extra, { inProcess: true });
    const own = { TARIFF_DATA_DIR: await tempDir(), TARIFF_BUCKET: `s3://${s3.bucket}/repair` };
    const on = (day: string) => ({ ...own, ...onDay(day) });
    const bucket = new S3Bucket({ bucket: s3.bucket, prefix: 'repair', env: s3.env, pathStyle: true });
    expect((await cron(['release', '--quiet'], on('2026-10-20'))).stdout).toBe('published 20260601.1 (was none)\n');
    expect((await cron(['release', '--quiet'], on('2026-11-22'))).stdout).toBe('published 20261101.1 (was 20260601.1)\n');

    // One byte flipped in the current release, which carries the changes since 20260601.1.
    const key = 'releases/20261101.1/dataset.json.gz';
    const good = (await bucket.get(key))!;
    const flipped = Buffer.from(good);
    flipped[100]! ^= 0x01;
    await bucket.put(key, flipped, 'application/gzip');
    expect(await cron(['release', '--quiet'], on('2026-11-22'))).toEqual({ status: 0, stdout: 'repaired 20261101.1\n', stderr: '' });
    expect((await bucket.get(key))!.equals(good)).toBe(true);
    expect(await cron(['release', '--quiet'], on('2026-11-22'))).toEqual({ status: 0, stdout: '', stderr: '' });

    // Another day's tariff is not published by accident, and an older one never becomes current.
    const other = await cron(['release', '--quiet', '--date', '2026-10-20'], on('2026-11-22'));
    expect(other.status).toBe(2);
    expect(other.stdout).toBe('');
    expect(other.stderr).toContain('--date 2026-10-20 is not today (2026-11-22)');
    // (It also drops the cigarettes: past the shrink guard too, the plan still refuses it.)
    const back = await cron(['release', '--quiet', '--date', '2026-10-20', '--allow-other-date', '--allow-shrink'], on('2026-11-22'));
    expect(back.status).toBe(1);
    expect(back.stderr).toContain('is older than the current release 20261101.1; nothing was published');
    expect((await cron(['releases', '--json'], own)).stdout).toContain('"current": "20261101.1"');
  });

  it('says its version and the Node.js it runs on', async () => {
    expect(await cron(['--version'])).toEqual({ status: 0, stdout: `${VERSION} (Node.js ${process.versions.node})\n`, stderr: '' });
  });

  it('runs the documented crontab: the installed command found through its PATH, on Node.js 24 whatever `node` PATH finds', async () => {
    const operations = readFileSync(join(REPO, 'docs/operations.md'), 'utf8');
    const documented = /^5 [^\n]* {2}(\S+) release --quiet$/m.exec(operations);
    expect(documented, 'the crontab line of docs/operations.md').not.toBeNull();
    expect((await runCli(['release', '--help'])).stdout).toContain(`  ${documented![1]} release --quiet`);
    const cronPath = /^PATH=(\S+)$/m.exec(operations);
    expect(cronPath, 'the crontab PATH of docs/operations.md').not.toBeNull();
    // An installed command as `npm install --global --prefix` lays it out: a link in <prefix>/bin to
    // the package's bin/tariff.js. Behind it, the crontab's own PATH, where `node` is the machine's.
    const prefix = await tempDir();
    mkdirSync(join(prefix, 'bin'));
    symlinkSync(CLI, join(prefix, 'bin', documented![1]!));
    const path = cronPath![1]!.replace('/opt/tariff', prefix);
    const ran = await new Promise<CliResult>((resolve) =>
      execFile(documented![1]!, ['--version'], { cwd: prefix, env: { PATH: path } }, (error, stdout, stderr) =>
        resolve({ status: error ? 1 : 0, stdout, stderr }),
      ),
    );
    expect(ran).toEqual({ status: 0, stdout: `${VERSION} (Node.js ${process.versions.node})\n`, stderr: '' });
  });

  it("never prints the AWS SDK's Node.js version warning, on success or failure", async () => {
    const listed = await cron(['releases']);
    expect(listed.status).toBe(0);
    expect(listed.stderr).toBe('');
    // An endpoint that does not answer: our error, and nothing of the SDK's.
    const unreachable = await cron(['releases'], { AWS_ENDPOINT_URL_S3: 'http://127.0.0.1:1', TARIFF_S3_TIMEOUT_MS: '2000' });
    expect(unreachable.status).toBe(1);
    expect(unreachable.stderr).toMatch(/^tariff: /);
    expect(unreachable.stderr).not.toMatch(/NodeVersionSupportWarning|AWS SDK for JavaScript|node >=/);
    // No credentials anywhere: the hint is about credentials, not the network (no instance role looked up either).
    const anonymous = await cron(['releases'], { AWS_ACCESS_KEY_ID: '', AWS_SECRET_ACCESS_KEY: '', AWS_EC2_METADATA_DISABLED: 'true' });
    expect(anonymous.status).toBe(1);
    expect(anonymous.stderr).toContain('Check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY');
    expect(anonymous.stderr).not.toMatch(/NodeVersionSupportWarning|AWS SDK for JavaScript/);
  });
});
