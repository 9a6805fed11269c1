// The CLI compiled once per source tree. Loading ~80 TypeScript modules through tsx's loader costs
// about half a second at every start (a cron run, each `tariff sync` at the till); one esbuild
// bundle of the same sources, cached under node_modules/.cache, loads in a fraction of that.
//
// Never a stale copy: the cache is keyed by the SHA-256 of the sources' bytes (and of this file,
// package-lock.json, the bundler's version and where the tree lives), computed at every start
// (about 15 ms), so any edit, checkout or upgrade builds a new bundle before it runs. Anything in
// the way (a read-only install, no esbuild) and the caller runs the sources through tsx as before.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { createRequire, isBuiltin } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** Where the bundles are kept unless TARIFF_CLI_CACHE names another folder. */
export const DEFAULT_CACHE = join(ROOT, 'node_modules', '.cache', 'tariff-cli');
/** A bundle of an older tree is removed once this old (a run that started on it has long ended), beyond the newest few. */
const STALE_AFTER_MS = 24 * 3600 * 1000;
const KEEP_OLD_BUNDLES = 3;

/** The cache key of the sources under `root`/src: what they say, where they are, what compiles them. */
export function sourceFingerprint(root = ROOT) {
  const hash = createHash('sha256');
  // The installed packages the bundle names by path, and how it is made.
  const lock = existsSync(join(root, 'package-lock.json')) ? readFileSync(join(root, 'package-lock.json')) : Buffer.alloc(0);
  hash.update(`${root}\0${readFileSync(fileURLToPath(import.meta.url))}\0${bundlerVersion()}\0${lock.length}\0`);
  hash.update(lock);
  const src = join(root, 'src');
  const names = readdirSync(src, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts') && !name.endsWith('.test.ts'))
    .sort();
  for (const name of names) {
    const bytes = readFileSync(join(src, name));
    hash.update(`${name}\0${bytes.length}\0`);
    hash.update(bytes);
  }
  return hash.digest('hex').slice(0, 32);
}

const bundlerVersion = () => JSON.parse(readFileSync(createRequire(import.meta.url).resolve('esbuild/package.json'), 'utf8')).version;

/**
 * The URL of the compiled `src/cli/main.ts` for the sources as they are now, built first when the
 * cache has none. Throws when it cannot be built or written: the caller then runs the sources.
 */
export async function compiledCli(cache = DEFAULT_CACHE) {
  const dir = join(cache, sourceFingerprint());
  const main = join(dir, 'main.js');
  if (!existsSync(main)) await build(cache, dir);
  return pathToFileURL(main).href;
}

async function build(cache, dir) {
  const { build: bundle } = await import('esbuild');
  mkdirSync(cache, { recursive: true });
  // Written aside and renamed: a run never sees half a bundle, and of two runs building at once
  // the second simply finds the first one's.
  const scratch = join(cache, `.building-${process.pid}-${Date.now()}`);
  try {
    await bundle({
      entryPoints: [join(ROOT, 'src/cli/main.ts')],
      outdir: scratch,
      bundle: true,
      splitting: true,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      sourcemap: 'linked',
      logLevel: 'silent',
      plugins: [sourceUrls, installedPackages],
    });
    try {
      renameSync(scratch, dir);
    } catch (error) {
      if (!existsSync(join(dir, 'main.js'))) throw error;
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  removeOldBundles(cache, dir);
}

/**
 * Each module keeps its own `import.meta.url`: the sources find their neighbours by it (the PDF
 * reader's worker, the website's static files, the SQL routines), and those stay in src/.
 */
const sourceUrls = {
  name: 'source-urls',
  setup(build) {
    build.onLoad({ filter: /\.ts$/ }, (args) => ({
      contents: readFileSync(args.path, 'utf8').replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href)),
      loader: 'ts',
    }));
  },
};

/**
 * Packages are not bundled: each import names the installed file Node itself would load, so the
 * bundle runs from any folder (its cache may be outside the project).
 */
const installedPackages = {
  name: 'installed-packages',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, (args) =>
      isBuiltin(args.path) ? { path: args.path, external: true } : { path: import.meta.resolve(args.path), external: true },
    );
  },
};

/** Bundles of older trees: the three newest stay (a long-running service may still load from one), older ones go after a day. */
function removeOldBundles(cache, current) {
  const bundles = readdirSync(cache)
    .map((name) => join(cache, name))
    .filter((path) => path !== current)
    .map((path) => ({ path, mtimeMs: statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? Date.now() }))
    .sort((a, b) => b.mtimeMs - a.mtimeMs);
  for (const { path, mtimeMs } of bundles.slice(KEEP_OLD_BUNDLES)) {
    if (Date.now() - mtimeMs > STALE_AFTER_MS) rmSync(path, { recursive: true, force: true });
  }
}
