import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthorityServer } from '../helpers/authority-server.ts';
import { CLI, REPO } from '../helpers/run-cli.ts';
import { tempDir } from '../helpers/temp-dir.ts';

// A CI runner's log is often a terminal (GitLab's and GitHub's runners give one, for colours):
// `tariff build` there must print lines a log keeps, not progress bars redrawn with escape codes.
// Run under `script`, which gives the command a pseudo-terminal as a runner does.
let authority: AuthorityServer;
beforeAll(async () => {
  authority = await new AuthorityServer().start();
  authority.lists.set('/sigarette.xml', { body: readFileSync(join(REPO, 'fixtures/sample/tariff/sigarette-2026-11-01.xml')) });
});
afterAll(async () => {
  await authority.close();
});

/** `tariff <args>` on a terminal, with these variables: what the terminal showed. */
async function onTerminal(args: string[], env: Record<string, string>): Promise<string> {
  const dir = await tempDir();
  const command = [process.execPath, CLI, ...args.map((arg) => arg.replaceAll('$DIR', dir))].map((word) => `'${word}'`).join(' ');
  const { stdout } = await promisify(execFile)('script', ['-qec', command, '/dev/null'], {
    env: { ...process.env, ...env, TARIFF_DATA_DIR: dir, TARIFF_SOURCE_URLS: authority.url('/sigarette.xml'), TERM: 'xterm' },
    encoding: 'utf8',
  });
  return stdout;
}

// eslint-disable-next-line no-control-regex -- the escape character is what is looked for
const ESCAPE = /\u001b/;

describe('the CLI in a CI job', () => {
  it('tariff build and tariff fetch print no progress bar or escape code when CI is set, on a terminal as a runner gives one', async () => {
    const build = await onTerminal(['build', '--source', authority.url('/sigarette.xml'), '--date', '2026-11-22', '--out', '$DIR/out'], {
      CI: 'true',
    });
    expect(build).toContain('20261101.1');
    expect(build).not.toMatch(ESCAPE);
    // A download's progress: bars on a terminal of one's own, lines under CI.
    expect(await onTerminal(['fetch'], { CI: '' })).toMatch(ESCAPE);
    const fetched = await onTerminal(['fetch'], { CI: 'true' });
    expect(fetched).toContain('tariff: fetch:');
    expect(fetched).not.toMatch(ESCAPE);
  });

  it('on GitHub Actions a failure is an annotation on stderr, never in the stdout a step sends to its summary; a first fetch that finds nothing says so', async () => {
    authority.lists.set('/gone.pdf', { body: '', status: 404 });
    const dir = await tempDir();
    const { runCli } = await import('../helpers/run-cli.ts');
    const failed = await runCli(['release', '--dry-run', '--candidate', join(dir, 'release'), '--data-dir', dir], {
      env: { GITHUB_ACTIONS: 'true', CI: 'true', TARIFF_SOURCE_URLS: authority.url('/gone.pdf') },
    });
    expect(failed.status).toBe(1);
    expect(failed.stdout).not.toContain('::error');
    expect(failed.stderr).toMatch(/^::error title=tariff fetch_failed::/m);
    expect(failed.stderr).toContain('no list has ever been fetched successfully here');
    expect(failed.stderr).toContain('There is no snapshot to fall back on yet');
    expect(failed.stderr).not.toContain('last good snapshot of this list stays in use');
  });
});
