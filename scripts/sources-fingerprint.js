// What dist/ was built from: the SHA-256 of the sources (their TypeScript modules and the files
// they load beside them, tests aside) and of the build script itself, recorded in dist/ by
// scripts/build.js and compared by the test that refuses a stale dist/.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The file in dist/ that names the sources it was built from. */
export const BUILD_INFO = 'build-info.json';

/** A file of src/ other than a module, copied into dist/ beside the bundle. */
export function isAsset(path) {
  return !path.endsWith('.ts');
}

/** The fingerprint of the sources under `root`: every byte of every module and asset, and of the build. */
export function sourcesFingerprint(root) {
  const hash = createHash('sha256');
  const src = join(root, 'src');
  const names = readdirSync(src, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && !entry.name.endsWith('.test.ts'))
    .map((entry) =>
      join(entry.parentPath, entry.name)
        .slice(src.length + 1)
        .replaceAll('\\', '/'),
    )
    .sort();
  for (const name of [...names.map((name) => `src/${name}`), 'scripts/build.js', 'scripts/sources-fingerprint.js']) {
    const bytes = readFileSync(join(root, name));
    hash.update(`${name}\0${bytes.length}\0`);
    hash.update(bytes);
  }
  return hash.digest('hex');
}
