import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { chownSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthorityServer } from '../helpers/authority-server.ts';
import { freePort } from '../helpers/machine.ts';
import { onDay, REPO } from '../helpers/run-cli.ts';
import { readBucketJson } from '../helpers/bucket-folder.ts';

// The container image as an operator runs it (.ci/run: npm run test:image): built by `npm run
// image` twice (one digest), served, asked with the key it prints, stopped, and run once as the
// cron job against a bucket folder. podman must run here: a machine where it cannot fails, saying why.
const IMAGE = 'localhost/tariff:latest';
const podman = (args: string[]) => spawnSync('podman', args, { encoding: 'utf8', timeout: 120_000 });
const folders: string[] = [];
/** A folder the image's user (uid 10001) may write, as a volume must be. */
const volume = (prefix: string) => {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  chownSync(dir, 10001, 10001);
  folders.push(dir);
  return dir;
};

let built: { digest: string; line: string };
function build(): { digest: string; line: string } {
  const result = spawnSync('npm', ['run', '--silent', 'image'], { cwd: REPO, encoding: 'utf8', timeout: 900_000 });
  if (result.status !== 0) throw new Error(`npm run image failed: ${result.stderr}`);
  const line = result.stdout.trim().split('\n').at(-1)!;
  return { digest: /sha256:[0-9a-f]{64}/.exec(line)![0], line };
}

beforeAll(() => {
  const version = podman(['--version']);
  if (version.status !== 0) throw new Error(`podman cannot run here: ${version.error?.message ?? version.stderr}`);
  built = build();
  // The figures the CI step reports.
  console.info(`image: ${built.line}`);
}, 900_000);
afterAll(() => {
  for (const dir of folders) rmSync(dir, { recursive: true, force: true });
});

describe('the container image', () => {
  it('is the same image, to the digest, when built again from the same commit', () => {
    expect(build().digest).toBe(built.digest);
  });

  it('serves the demo with the key it prints, as no root and with no shell, and stops on SIGTERM', async () => {
    const port = await freePort();
    const name = `tariff-test-${port}`;
    const started = performance.now();
    const run = podman([
      'run',
      '-d',
      '--name',
      name,
      '-p',
      `127.0.0.1:${port}:8080`,
      IMAGE,
      'start',
      '--host',
      '0.0.0.0',
      '--port',
      '8080',
    ]);
    expect(run.status, run.stderr).toBe(0);
    try {
      const url = `http://127.0.0.1:${port}`;
      const deadline = Date.now() + 60_000;
      while (
        !(await fetch(`${url}/healthz`).then(
          (r) => r.ok,
          () => false,
        ))
      ) {
        if (Date.now() > deadline) throw new Error(`not healthy within 60 s: ${podman(['logs', name]).stderr}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      console.info(`image: healthy ${((performance.now() - started) / 1000).toFixed(1)} s after podman run`);
      const key = /ttd_[A-Za-z0-9_-]+/.exec(podman(['logs', name]).stderr)![0];
      const version = await fetch(`${url}/v1/version`, { headers: { authorization: `Bearer ${key}` } });
      expect(version.status).toBe(200);
      expect((await version.json()).version).toMatch(/^\d{8}\.\d+$/);
      expect((await fetch(`${url}/prodotti?q=toscano`)).status).toBe(200);
      // The process runs as the image's user, not root.
      const pid = podman(['inspect', '--format', '{{.State.Pid}}', name]).stdout.trim();
      expect(readFileSync(`/proc/${pid}/status`, 'utf8')).toMatch(/^Uid:\s+10001\s/m);
      // Stopped with SIGTERM and 2 s before a SIGKILL: it exits 0 by itself, in time.
      expect(podman(['stop', '-t', '2', name]).status).toBe(0);
      expect(podman(['inspect', '--format', '{{.State.ExitCode}}', name]).stdout.trim()).toBe('0');
    } finally {
      podman(['rm', '-f', name]);
    }
    const shell = podman(['run', '--rm', '--entrypoint', '/bin/sh', IMAGE, '-c', 'true']);
    expect(shell.status).not.toBe(0);
    expect(`${shell.stdout}${shell.stderr}`).toMatch(/no such file or directory/);
  });

  it('runs tariff release once as the cron job would: publishes to a mounted bucket folder, then prints nothing', async () => {
    const authority = await new AuthorityServer().start();
    try {
      authority.lists.set('/sigarette.xml', { body: readFileSync(join(REPO, 'fixtures/sample/tariff/sigarette-2026-11-01.xml')) });
      const bucket = volume('tariff-image-bucket-');
      const data = volume('tariff-image-data-');
      // Not a synchronous call: the stand-in authority answers from this very process.
      const release = async () =>
        (
          await promisify(execFile)(
            'podman',
            [
              'run',
              '--rm',
              '--network',
              'host',
              '-v',
              `${bucket}:/bucket`,
              '-v',
              `${data}:/data`,
              '-e',
              'TARIFF_BUCKET=/bucket',
              '-e',
              `TARIFF_SOURCE_URLS=${authority.url('/sigarette.xml')}`,
              '-e',
              `SOURCE_DATE_EPOCH=${onDay('2026-11-22').SOURCE_DATE_EPOCH}`,
              IMAGE,
              'release',
              '--quiet',
            ],
            { encoding: 'utf8', timeout: 120_000 },
          )
        ).stdout;
      expect(await release()).toBe('published 20261101.1 (was none)\n');
      expect(await release()).toBe('');
      expect(readBucketJson(bucket, 'current.json').version).toBe('20261101.1');
    } finally {
      await authority.close();
    }
  });
});
