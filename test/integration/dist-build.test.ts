import { chmodSync, cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: plain JavaScript, run by npm before any TypeScript exists; its exports are typed here.
import { BUILD_INFO, sourcesFingerprint as untyped } from '../../scripts/sources-fingerprint.js';
import { REPO, runCliProcess } from '../helpers/run-cli.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const sourcesFingerprint = untyped as (root: string) => string;
const VERSION = (JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string }).version;

/** A tree of two modules, an asset and a test under `root`/src, with the build's own scripts. */
function sourceTree(root: string): string {
  mkdirSync(join(root, 'src/cli'), { recursive: true });
  writeFileSync(join(root, 'src/cli/main.ts'), "export const main = () => 'a';\n");
  writeFileSync(join(root, 'src/cli/main.test.ts'), "it('runs', () => {});\n");
  writeFileSync(join(root, 'src/cli/worker.mjs'), 'export {};\n');
  cpSync(join(REPO, 'scripts'), join(root, 'scripts'), { recursive: true });
  return root;
}

describe('dist/, the command as npm run build compiles it', () => {
  it('is the build of the sources as they are (run `npm run build` after editing src/)', () => {
    const built = JSON.parse(readFileSync(join(REPO, 'dist', BUILD_INFO as string), 'utf8')) as { sources: string };
    expect(built.sources, 'dist/ is stale: run `npm run build`').toBe(sourcesFingerprint(REPO));
  });

  it('is known stale after any change to a module or a file beside it, not to a test', async () => {
    const root = sourceTree(await tempDir());
    const first = sourcesFingerprint(root);
    writeFileSync(join(root, 'src/cli/main.test.ts'), "it('runs again', () => {});\n");
    expect(sourcesFingerprint(root)).toBe(first);
    // One byte changed, the size the same.
    writeFileSync(join(root, 'src/cli/main.ts'), "export const main = () => 'b';\n");
    const edited = sourcesFingerprint(root);
    expect(edited).not.toBe(first);
    writeFileSync(join(root, 'src/cli/worker.mjs'), 'export { };\n');
    expect(sourcesFingerprint(root)).not.toBe(edited);
  });

  it('is all the command runs: nothing from a cache folder that others can write', async () => {
    // What the command's run-time bundles once were: a main.js under a key anyone can compute, in
    // the folder TARIFF_CLI_CACHE names, here writable by every user. The command no longer looks
    // in any cache folder, so the planted module never runs.
    const cache = await tempDir();
    chmodSync(cache, 0o777);
    const planted = "process.stdout.write('planted\\n'); export const main = async () => 0; export const cliIo = () => null;\n";
    writeFileSync(join(cache, 'main.js'), planted);
    mkdirSync(join(cache, 'a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5'), { mode: 0o777 });
    writeFileSync(join(cache, 'a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5', 'main.js'), planted);
    const ran = await runCliProcess(['--version'], { env: { TARIFF_CLI_CACHE: cache } });
    expect(ran).toEqual({ status: 0, stdout: `${VERSION} (Node.js ${process.versions.node})\n`, stderr: '' });
  });

  it('loads code only from its own install, whatever the environment names', async () => {
    const scratch = await tempDir();
    chmodSync(scratch, 0o777);
    const loaded = join(scratch, 'loaded.txt');
    // Node's own module hooks record every module the command loads (the hook itself excepted).
    const hook = join(scratch, 'record-loads.mjs');
    writeFileSync(
      hook,
      `import { appendFileSync } from 'node:fs';\nimport { registerHooks } from 'node:module';\n` +
        `registerHooks({ load(url, context, next) { appendFileSync(${JSON.stringify(loaded)}, url + '\\n'); return next(url, context); } });\n`,
    );
    const ran = await runCliProcess(['build', '--help'], { env: { TARIFF_CLI_CACHE: scratch, NODE_OPTIONS: `--import=${hook}` } });
    expect(ran.status).toBe(0);
    const files = readFileSync(loaded, 'utf8')
      .trim()
      .split('\n')
      .filter((url) => url.startsWith('file:'));
    expect(files.some((url) => url.includes('/dist/chunk-'))).toBe(true);
    expect(files.filter((url) => !url.startsWith(pathToFileURL(REPO).href))).toEqual([]);
  });

  it('runs on Node.js 24, the runtime the product is built and tested for', () => {
    expect(process.versions.node).toMatch(/^24\./);
  });
});
