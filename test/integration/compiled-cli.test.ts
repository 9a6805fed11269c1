import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: plain JavaScript, run before any TypeScript loader; its one export is typed here.
import { sourceFingerprint as untyped } from '../../bin/compiled-cli.js';
import { REPO, runCliProcess } from '../helpers/run-cli.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const sourceFingerprint = untyped as (root?: string) => string;
const VERSION = (JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string }).version;

/** A source tree of two modules and a test under `root`/src. */
function sourceTree(root: string): string {
  mkdirSync(join(root, 'src/cli'), { recursive: true });
  writeFileSync(join(root, 'src/cli/main.ts'), "export const main = () => 'a';\n");
  writeFileSync(join(root, 'src/cli/main.test.ts'), "it('runs', () => {});\n");
  writeFileSync(join(root, 'src/errors.ts'), 'export const errors = {};\n');
  writeFileSync(join(root, 'package-lock.json'), '{"packages": {"node_modules/zod": {"version": "4.6.7"}}}\n');
  return root;
}

/** A module standing in for a compiled CLI: it says `what` instead of running a command. */
const fakeBundle = (what: string) =>
  `export const cliIo = () => null;\nexport async function main() { process.stdout.write(${JSON.stringify(`${what}\n`)}); return 0; }\n`;

describe('the compiled CLI (bin/compiled-cli.js)', () => {
  it('is keyed by the bytes of every source module, the packages installed and where the tree is, not by its tests', async () => {
    const root = sourceTree(await tempDir());
    const first = sourceFingerprint(root);
    expect(sourceFingerprint(root)).toBe(first);

    writeFileSync(join(root, 'src/cli/main.test.ts'), "it('runs again', () => {});\n");
    expect(sourceFingerprint(root)).toBe(first);

    // One byte changed, the size the same.
    writeFileSync(join(root, 'src/errors.ts'), 'export const errorz = {};\n');
    const edited = sourceFingerprint(root);
    expect(edited).not.toBe(first);

    writeFileSync(join(root, 'src/cli/extra.ts'), 'export {};\n');
    const added = sourceFingerprint(root);
    expect(added).not.toBe(edited);

    writeFileSync(join(root, 'package-lock.json'), '{"packages": {"node_modules/zod": {"version": "4.6.8"}}}\n');
    expect(sourceFingerprint(root)).not.toBe(added);

    const moved = join(await tempDir(), 'elsewhere');
    cpSync(root, moved, { recursive: true });
    expect(sourceFingerprint(moved)).not.toBe(sourceFingerprint(root));
  });

  it('runs the bundle of the sources as they are, and never one of other sources', async () => {
    const cache = await tempDir();
    // What `tariff` finds under the key of the sources as they are is what it runs …
    mkdirSync(join(cache, sourceFingerprint()));
    writeFileSync(join(cache, sourceFingerprint(), 'main.js'), fakeBundle('the bundle of these sources'));
    expect(await runCliProcess(['--version'], { env: { TARIFF_CLI_CACHE: cache } })).toEqual({
      status: 0,
      stdout: 'the bundle of these sources\n',
      stderr: '',
    });

    // … and a bundle of any other sources is never run: the sources are bundled anew.
    const other = await tempDir();
    mkdirSync(join(other, 'an-older-tree'));
    writeFileSync(join(other, 'an-older-tree', 'main.js'), fakeBundle('a stale bundle'));
    expect(await runCliProcess(['--version'], { env: { TARIFF_CLI_CACHE: other } })).toEqual({
      status: 0,
      stdout: `${VERSION}\n`,
      stderr: '',
    });
    expect(existsSync(join(other, sourceFingerprint(), 'main.js'))).toBe(true);
    expect(existsSync(join(other, 'an-older-tree', 'main.js'))).toBe(true);
  });

  it('runs the sources through tsx when told to, or when the bundle cannot be kept', async () => {
    expect(await runCliProcess(['--version'], { env: { TARIFF_CLI_CACHE: 'off' } })).toEqual({
      status: 0,
      stdout: `${VERSION}\n`,
      stderr: '',
    });
    const file = join(await tempDir(), 'a-file');
    writeFileSync(file, '');
    expect(await runCliProcess(['--version'], { env: { TARIFF_CLI_CACHE: join(file, 'cache') } })).toEqual({
      status: 0,
      stdout: `${VERSION}\n`,
      stderr: '',
    });
  });
});
