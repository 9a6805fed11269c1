// Builds dist/: the CLI bundled by esbuild (src/cli/main.ts and what it imports, the packages left
// to Node's own resolution) with the sources' other files beside it, at the places the modules
// name them from. Run by `npm install` (prepare), `npm pack`, `npm start` and `npm test`;
// test/integration/dist-build.test.ts fails when dist/ is not the build of the sources as they are.
import { build, stop } from 'esbuild';
import { cpSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BUILD_INFO, isAsset, sourcesFingerprint } from './sources-fingerprint.js';
import { BUNDLED as BUNDLED_PACKAGES } from './bundled-packages.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const src = join(root, 'src');
const dist = join(root, 'dist');
// Built aside and renamed into place: a command started meanwhile never loads half a build.
const scratch = join(root, `.dist-${process.pid}`);

/**
 * The bundle's modules live in dist/'s top folder, so each module's `import.meta.url` becomes the
 * URL its own compiled file would have (dist/server/app.js for src/server/app.ts): what a module
 * finds beside it (the PDF reader's worker, the website's files, the SQL routines) is copied there.
 */
const moduleUrls = {
  name: 'module-urls',
  setup(builder) {
    builder.onLoad({ filter: /\.ts$/ }, (args) => {
      const own = `./${relative(src, args.path).replaceAll('\\', '/').replace(/\.ts$/, '.js')}`;
      const contents = readFileSync(args.path, 'utf8').replaceAll(
        'import.meta.url',
        `new URL(${JSON.stringify(own)}, import.meta.url).href`,
      );
      return { contents, loader: 'ts' };
    });
  },
};

/**
 * Packages bundled into dist/ rather than loaded from node_modules at run time (scripts/bundled-packages.js).
 * The others stay external: native addons, packages that read files beside their own (PDFium's
 * WebAssembly, NeDB's engine by its path), and those only a server or a build loads.
 */
const BUNDLED = new Set(BUNDLED_PACKAGES);
const bundledPackages = {
  name: 'bundled-packages',
  setup(builder) {
    builder.onResolve({ filter: /^[^./]/ }, (args) => {
      const name = args.path.startsWith('@') ? args.path.split('/').slice(0, 2).join('/') : args.path.split('/')[0];
      if (args.path.startsWith('node:') || BUNDLED.has(name)) return undefined;
      return { path: args.path, external: true };
    });
  },
};

rmSync(scratch, { recursive: true, force: true });
try {
  await build({
    // The CLI, the catalogue's builder (a process of its own the service starts) and the PDF
    // structure checker (one a command starts): at dist/'s top, where each module's URL is as
    // moduleUrls makes it; build-catalogue.ts and check-in-process.ts find them there.
    entryPoints: {
      main: join(src, 'cli/main.ts'),
      'catalogue-builder': join(src, 'web/catalogue/catalogue-builder.ts'),
      'pdf-structure-checker': join(src, 'source/pdf/structure-checker.ts'),
    },
    outdir: scratch,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node24',
    plugins: [moduleUrls, bundledPackages],
    // The bundled CommonJS packages require Node's modules: each chunk gets a require of its own.
    banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
    sourcemap: 'linked',
    // Chunks are named by their content alone, so the same sources build the same dist/.
    chunkNames: 'chunk-[hash]',
    logLevel: 'warning',
  });
  cpSync(src, scratch, { recursive: true, filter: (path) => statSync(path).isDirectory() || isAsset(path) });
  writeFileSync(join(scratch, BUILD_INFO), `${JSON.stringify({ sources: sourcesFingerprint(root) }, null, 2)}\n`);
  rmSync(dist, { recursive: true, force: true });
  renameSync(scratch, dist);
} finally {
  rmSync(scratch, { recursive: true, force: true });
  // esbuild's service process ends now and is reaped here: left to end with this process, it is
  // orphaned to whatever reaps orphans (npm, when it is a container's PID 1: a zombie for good).
  await stop();
}
