#!/usr/bin/env node
// The CLI runs from the TypeScript sources, so a fresh clone needs no build step and operators
// never run a stale compiled copy: compiled-cli.js bundles the sources as they are (cached by
// their content), and when it cannot, tsx runs them directly.

// The AWS SDK warns on every start that its releases after January 2027 will need Node.js 22:
// nine lines in every cron mail and in the service's JSON log. It emits that warning under the
// plain name "Warning", so no listener can tell it apart; the SDK's own switch silences exactly
// it. Every other warning still prints.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

// `tariff … | head` closes the pipe early: that is the reader's choice, not an error.
process.stdout.on('error', (error) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

const { main, cliIo } = await loadCli();
process.exitCode = await main(process.argv, cliIo(process.env, { stdout: process.stdout, stderr: process.stderr }));

/**
 * The compiled CLI of the sources as they are (kept in TARIFF_CLI_CACHE, a folder, by default
 * node_modules/.cache/tariff-cli); the sources run through tsx when it cannot be had, or when
 * TARIFF_CLI_CACHE=off.
 */
async function loadCli() {
  const cache = process.env.TARIFF_CLI_CACHE;
  const url = cache === 'off' ? null : await compiledCliUrl(cache || undefined);
  if (url) {
    // An internal error's stack names the sources' lines, not the bundle's.
    process.setSourceMapsEnabled(true);
    return import(url);
  }
  const { register } = await import('tsx/esm/api');
  register();
  return import('../src/cli/main.ts');
}

/**
 * The bundle's URL, or null when it cannot be built or kept (a read-only install, no esbuild).
 * A bundle that is there but fails to load is an error, never hidden.
 */
async function compiledCliUrl(cache) {
  try {
    const { compiledCli } = await import('./compiled-cli.js');
    return await compiledCli(cache);
  } catch {
    return null;
  }
}
