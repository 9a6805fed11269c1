// The packages esbuild bundles into dist/ (scripts/build.js) rather than leaving to Node's
// resolution at run time: pure JavaScript read at every start of a command (settings, the lock,
// argument parsing), whose many small files cost Node's module loader more than their code, with
// the packages only they use. The image (scripts/build-image.sh) leaves them out of node_modules:
// nothing loads them from there.
export const BUNDLED = ['zod', 'commander', 'proper-lockfile', 'graceful-fs', 'retry', 'signal-exit'];
