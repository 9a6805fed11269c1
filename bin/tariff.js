#!/bin/sh
":" //# ; s=$0; while [ -h "$s" ]; do l=$(readlink "$s"); case $l in /*) s=$l ;; *) s=${s%/*}/$l ;; esac; done; exec "${s%/*}/tariff" "$@"
// Run as a program (./bin/tariff.js, or a link to it), the line above is for sh: following links to
// this file, it replaces itself with bin/tariff beside it, the launcher that execs the bundled
// Node.js on this file, so no process waits beside the command whatever node is first on PATH.
// Run by a node (`node bin/tariff.js`, npm start), it is a directive and a comment, and what
// follows is the command.
// The command. It runs dist/, the CLI that `npm run build` compiles from src/ (npm install, npm pack,
// npm start and npm test build it; a test fails when dist/ is not the build of src/ as it is), so
// nothing is compiled at run time and nothing executable is read from outside the install.
//
// It runs on Node.js 24, the runtime it is built and tested for. Started by an older or newer
// Node.js (`node bin/tariff.js` in a crontab whose PATH finds the machine's own Node.js), it
// hands the same arguments to the Node.js 24 that the install brought along (bin/runtime.js).
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, statSync } from 'node:fs';
// A namespace, not a named import: the Node.js 20 that hands over has no enableCompileCache.
import * as nodeModule from 'node:module';
import { isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { constants as osConstants } from 'node:os';
import { bundledNode, commandIn, isRuntime, RUNTIME_MAJOR } from './runtime.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const COMPILED = new URL('../dist/main.js', import.meta.url);
/** Names the launcher in its child's environment: the child never runs on alone once the launcher is gone. */
const LAUNCHER = 'TARIFF_LAUNCHER_PID';

if (isRuntime(process.versions.node)) await run();
else relaunch();

async function run() {
  // A stop is the way `serve` ends (systemd's stop and restart, a container's): clean, exit 0, at any
  // moment. Any other command stopped before it finished exits 128 + the signal, as the shell says.
  const cleanStop = commandIn(process.argv.slice(2)) === 'serve';
  // Until the command's own stop is in place (its modules load first), a signal is answered here.
  const early = (signal) => {
    process.stderr.write(`tariff: stopped by ${signal} while starting\n`);
    process.exit(cleanStop ? 0 : 128 + osConstants.signals[signal]);
  };
  process.on('SIGINT', early);
  process.on('SIGTERM', early);
  // `tariff … | head` closes the pipe early: that is the reader's choice, not an error.
  process.stdout.on('error', (error) => {
    if (error.code === 'EPIPE') process.exit(0);
    throw error;
  });
  if (!existsSync(COMPILED)) fail(`${fileURLToPath(COMPILED)} is missing: run \`npm run build\` in ${ROOT}`);
  useCompileCache();
  // Source maps stay off (NODE_OPTIONS=--enable-source-maps turns them on): reading them costs
  // every start, and only an internal error's stack would use them.
  const { main, cliIo, stopOnSignals } = await import(COMPILED.href);
  stopOnSignals((line) => process.stderr.write(line), undefined, { clean: cleanStop });
  process.off('SIGINT', early);
  process.off('SIGTERM', early);
  const launcher = watchLauncher();
  const io = cliIo(process.env, { stdout: process.stdout, stderr: process.stderr });
  process.exitCode = await main(process.argv, { ...io, replace: (args, flags) => replace(args, flags, launcher) });
}

/**
 * V8's compiled code for the CLI's modules, kept between runs in the user's own cache folder
 * (XDG_CACHE_HOME or ~/.cache, then tariff/compile-cache): about a tenth less start-up for a
 * till's sync or a cron job. Only a folder this user owns and nobody else may write is used (its
 * contents become code), never a shared one like /tmp; where there is none (no home, a read-only
 * one), the command runs without. NODE_DISABLE_COMPILE_CACHE=1 turns it off.
 */
function useCompileCache() {
  const base = process.env.XDG_CACHE_HOME || (process.env.HOME ? join(process.env.HOME, '.cache') : '');
  if (!isAbsolute(base)) return;
  const folder = join(base, 'tariff', 'compile-cache');
  try {
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    for (const dir of [join(base, 'tariff'), folder]) {
      const info = statSync(dir);
      if (info.uid !== process.getuid?.() || (info.mode & 0o022) !== 0) return;
    }
  } catch {
    return;
  }
  nodeModule.enableCompileCache?.(folder);
}

/**
 * Replaces this process (process.execve: the same pid, so its signals, exit status and a
 * launcher's watch carry over) by this command with `args` added, on these Node.js flags: a
 * service gets a fresh heap and its own flags (src/service/service-runtime.ts). Returns false
 * where the system cannot (Windows): the command goes on as it is.
 */
function replace(args, flags, launcher) {
  if (typeof process.execve !== 'function') return false;
  const env = launcher ? { ...process.env, [LAUNCHER]: String(launcher) } : process.env;
  const command = [fileURLToPath(import.meta.url), ...process.argv.slice(2), ...args];
  try {
    process.execve(process.execPath, [process.execPath, ...process.execArgv, ...flags, ...command], env);
  } catch {
    // The system refused (a resource limit): the command goes on in this process, as where it cannot.
    return false;
  }
}

function relaunch() {
  const node = bundledNode(ROOT);
  if (!node) fail(`runs on Node.js ${RUNTIME_MAJOR} (this is ${process.version}); \`npm install\` in ${ROOT} brings it`);
  const child = spawn(node, [fileURLToPath(import.meta.url), ...process.argv.slice(2)], {
    stdio: 'inherit',
    env: { ...process.env, [LAUNCHER]: String(process.pid) },
  });
  // A terminal's Ctrl-C reaches the whole process group, the child included: passed on again, it
  // would cut short the child's own orderly stop. A SIGINT sent to this process alone is passed on.
  const forwarded = process.stdin.isTTY ? ['SIGTERM', 'SIGHUP'] : ['SIGINT', 'SIGTERM', 'SIGHUP'];
  for (const signal of forwarded) process.on(signal, () => child.kill(signal));
  if (process.stdin.isTTY) process.on('SIGINT', () => {});
  child.on('error', (error) => fail(`cannot start ${node}: ${error.message}`));
  child.on('exit', (code, signal) => {
    if (signal) {
      process.removeAllListeners(signal);
      process.kill(process.pid, signal);
    }
    process.exit(code ?? 1);
  });
}

/**
 * Started by the launcher (an older Node.js's `tariff`), the command stops as on SIGTERM once the
 * launcher is gone: killed outright (SIGKILL), it could pass nothing on, and cron or systemd,
 * which think the launcher is the command, must not find its work going on alone.
 */
function watchLauncher() {
  const launcher = Number(process.env[LAUNCHER]);
  delete process.env[LAUNCHER];
  if (!launcher || launcher !== process.ppid) return null;
  setInterval(() => {
    if (process.ppid !== launcher) process.kill(process.pid, 'SIGTERM');
  }, 250).unref();
  return launcher;
}

function fail(reason) {
  process.stderr.write(`tariff: ${reason}\n`);
  process.exit(1);
}
