import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { REPO, type CliResult } from './run-cli.ts';

/** A released version: its number and the commit it is built from. */
export interface Released {
  version: string;
  ref: string;
}

/** The released versions an upgrade is tested from, oldest first (test/compat/previous-version.json). */
export const RELEASED = (JSON.parse(readFileSync(join(REPO, 'test/compat/previous-version.json'), 'utf8')) as { versions: Released[] })
  .versions;

/** A released version by its number. */
export function released(version: string): Released {
  const found = RELEASED.find((entry) => entry.version === version);
  if (!found) throw new Error(`test/compat/previous-version.json names no version ${version}`);
  return found;
}

/**
 * Runs a command to its end, its output kept (never a shell: the arguments are passed as they are).
 * Its standard input is closed: nothing here answers a prompt.
 */
export function run(command: string, args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv }): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', reject);
    child.on('close', (code, signal) =>
      resolve({
        status: code ?? (signal ? 128 : 1),
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
      }),
    );
  });
}

const must = (what: string, result: CliResult) => {
  if (result.status !== 0) throw new Error(`${what} failed (${result.status}): ${result.stderr.slice(-2000)}`);
  return result;
};

/**
 * A released version as an operator has it: built from git history at its ref (git archive,
 * `npm ci`, `npm pack`) and installed from its tarball into a prefix of its own (`npm install
 * --global --prefix`), as docs/operations.md of that version says. Kept by its commit where the
 * machine keeps the tests' caches (/var/cache/tariff-test, as the booted Debian's root), or under
 * node_modules/.cache where that cannot be written: a second run on this machine, a fresh clone's
 * CI included, installs nothing. The build is whole only once its `installed` mark is written.
 * Returns the installed `tariff`.
 */
export async function installPrevious(previous: Released): Promise<string> {
  const root = join(previousCache(), previous.ref);
  const tariff = join(root, 'prefix/bin/tariff');
  if (existsSync(join(root, 'installed'))) return tariff;
  rmSync(root, { recursive: true, force: true });
  const [source, packed, prefix] = ['source', 'packed', 'prefix'].map((name) => join(root, name)) as [string, string, string];
  for (const dir of [source, packed, prefix]) mkdirSync(dir, { recursive: true });
  // The commit must be in this clone's history: a shallow clone (a CI's default) fetches it from its origin first.
  const present = () => run('git', ['cat-file', '-e', `${previous.ref}^{commit}`], { cwd: REPO });
  if ((await present()).status !== 0) await run('git', ['fetch', '--quiet', '--depth=1', 'origin', previous.ref], { cwd: REPO });
  must(`git cat-file ${previous.ref}: the previous version's commit is not in this clone (git fetch --unshallow)`, await present());
  const archive = join(root, 'source.tar');
  must('git archive', await run('git', ['archive', '--format=tar', '-o', archive, previous.ref], { cwd: REPO }));
  must('tar', await run('tar', ['-xf', archive, '-C', source], { cwd: root }));
  rmSync(archive);
  // The machine's environment (its proxy, its certificate authorities), without this run's own: a
  // test's TARIFF_ settings and the npm script's variables must not reach another version's build.
  const env = Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) => !name.startsWith('TARIFF_') && (!name.startsWith('npm_') || name === 'npm_config_cache'),
    ),
  );
  must('npm ci of the previous version', await run('npm', ['ci', '--no-audit', '--no-fund'], { cwd: source, env }));
  must('npm pack of the previous version', await run('npm', ['pack', '--pack-destination', packed], { cwd: source, env }));
  const tarball = join(
    packed,
    readdirSync(packed).find((name) => name.endsWith('.tgz'))!,
  );
  must(
    'npm install of the previous version',
    await run('npm', ['install', '--global', '--prefix', prefix, '--ignore-scripts', '--no-audit', '--no-fund', tarball], {
      cwd: packed,
      env,
    }),
  );
  // The sources and their development tree are not part of the install.
  rmSync(source, { recursive: true, force: true });
  writeFileSync(join(root, 'installed'), `${previous.ref}\n`);
  return tariff;
}

/**
 * Where built previous versions are kept: the machine's test cache when this user owns it and no
 * one else may write it (what is there is run as code), else this checkout's.
 */
function previousCache(): string {
  const machine = '/var/cache/tariff-test/previous';
  try {
    mkdirSync(machine, { recursive: true, mode: 0o755 });
    for (const dir of [dirname(machine), machine]) {
      const info = statSync(dir);
      if (info.uid !== process.getuid?.() || (info.mode & 0o022) !== 0) throw new Error(`${dir} is not this user's alone`);
    }
    return machine;
  } catch {
    return join(REPO, 'node_modules/.cache/tariff-previous');
  }
}
