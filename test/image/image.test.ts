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
import { kubeExample } from '../helpers/kube-podman.ts';
import { runCli } from '../helpers/run-cli.ts';
import { startS3 } from '../helpers/s3-server.ts';

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

  it('holds only what runs, within 50 MB compressed: no source maps, Markdown, TypeScript, tests, C headers, build files or bundled packages', () => {
    const name = `tariff-contents-${process.pid}`;
    expect(podman(['create', '--name', name, IMAGE]).status).toBe(0);
    let listing: string;
    try {
      listing = spawnSync('sh', ['-c', `podman export ${name} | tar -tvf -`], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 }).stdout;
    } finally {
      podman(['rm', '-f', name]);
    }
    const files = listing
      .split('\n')
      .filter((line) => line.startsWith('-'))
      .map((line) => {
        const [, , size, , , ...path] = line.split(/\s+/);
        return { path: path.join(' '), size: Number(size) };
      });
    const modules = 'opt/tariff/lib/node_modules/tobacco-tariff-dataset/node_modules/';
    const kinds: Record<string, (path: string) => boolean> = {
      'source maps': (path) => path.endsWith('.map'),
      Markdown: (path) => /\.(md|markdown)$/i.test(path),
      'TypeScript sources and declarations': (path) => /\.[mc]?ts$/.test(path),
      'tests of dependencies': (path) => path.startsWith(modules) && /\/(test|tests|__tests__)\//.test(path),
      'C headers, sources and build files': (path) => /\.(h|hpp|c|cc|cpp|gyp|gypi)$/.test(path),
      'packages bundled into dist/': (path) => /node_modules\/(zod|commander|proper-lockfile|graceful-fs|retry|signal-exit)\//.test(path),
      'deploy/ files': (path) => path.includes('/tobacco-tariff-dataset/deploy/'),
    };
    const sizes = new Map<string, number>();
    for (const file of files) {
      const kind = /\.([a-z0-9]+)$/i.exec(file.path)?.[1] ?? '(none)';
      sizes.set(kind, (sizes.get(kind) ?? 0) + file.size);
    }
    console.info(
      `image: ${files.length} files; by kind: ${[...sizes]
        .sort((a, b) => b[1] - a[1])
        .slice(0, 8)
        .map(([kind, size]) => `${kind} ${(size / 1048576).toFixed(1)} MB`)
        .join(', ')}`,
    );
    for (const [kind, matches] of Object.entries(kinds))
      expect(
        files.filter((file) => matches(file.path)).map((file) => file.path),
        kind,
      ).toEqual([]);
    expect(files.map((file) => file.path)).toContain('opt/tariff/lib/node_modules/tobacco-tariff-dataset/docs/openapi.json');
    const compressed = Number(/, (\d+) MB compressed\)/.exec(built.line)![1]);
    expect(compressed, built.line).toBeLessThanOrEqual(50);
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

describe('the Kubernetes example (deploy/kubernetes/tariff.yaml), run by podman as its specs say', () => {
  it('the Deployment is not ready on an empty bucket; the CronJob publishes from its read-only root; then it is ready', async () => {
    const s3 = await startS3();
    const authority = await new AuthorityServer().start();
    const port = await freePort();
    const name = `tariff-kube-${port}`;
    try {
      authority.lists.set('/sigarette.xml', { body: readFileSync(join(REPO, 'fixtures/sample/tariff/sigarette-2026-11-01.xml')) });
      const example = kubeExample(readFileSync(join(REPO, 'deploy/kubernetes/tariff.yaml'), 'utf8'));
      const scratch = volume('tariff-kube-');
      // What a test must change: the store and the authority on this machine's loopback, the port,
      // the registry on the pod's data dir (SQLite), no mail relay, a poll the test need not wait for.
      const here = { ...s3.env, TARIFF_BUCKET: `s3://${s3.bucket}/prod`, TARIFF_REGISTRY: null, SMTP_URL: null };
      const serve = example.podmanRun(example.pod('Deployment', 'tariff'), {
        claims: {},
        scratch,
        env: { ...here, TARIFF_PORT: String(port), TARIFF_MANIFEST_POLL_MS: '200' },
        network: 'host',
        name,
        detach: true,
      });
      const started = podman(['run', ...serve]);
      expect(started.status, started.stderr).toBe(0);
      const url = `http://127.0.0.1:${port}`;
      const ready = async () => (await fetch(`${url}/readyz`).catch(() => null))?.status;
      const deadline = Date.now() + 60_000;
      while ((await ready()) === undefined) {
        if (Date.now() > deadline) throw new Error(`the Deployment's container never answered: ${podman(['logs', name]).stderr}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(await ready(), 'nothing published: not ready').toBe(503);

      const keyDir = volume('tariff-kube-key-');
      const pem = join(keyDir, 'signing-key.pem');
      const created = await runCli(['signing-key', 'create', '--out', pem, '--data-dir', keyDir], {
        env: { ...s3.env, TARIFF_BUCKET: `s3://${s3.bucket}/prod` },
        process: true,
      });
      expect(created.status, created.stderr).toBe(0);
      const release = example.podmanRun(example.pod('CronJob', 'tariff-release'), {
        claims: { 'tariff-release-data': volume('tariff-kube-data-') },
        scratch,
        env: {
          ...here,
          TARIFF_SOURCE_PAGES: null,
          TARIFF_SOURCE_URLS: authority.url('/sigarette.xml'),
          ...onDay('2026-11-22'),
        },
        secrets: { 'tariff-signing-key': { 'signing-key.pem': readFileSync(pem, 'utf8') } },
        network: 'host',
      });
      const ran = await promisify(execFile)('podman', ['run', ...release], { encoding: 'utf8', timeout: 120_000 });
      expect(ran.stdout).toBe('published 20261101.1 (was none)\n');
      const readyBy = Date.now() + 30_000;
      while ((await ready()) !== 200) {
        if (Date.now() > readyBy) throw new Error(`not ready after the publication: ${podman(['logs', name]).stderr}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(await (await fetch(`${url}/readyz`)).json()).toEqual({ status: 'ready', release: '20261101.1' });
    } finally {
      podman(['rm', '-f', name]);
      await authority.close();
      await s3.close();
    }
  });
});
