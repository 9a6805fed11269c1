import { fork, type ChildProcess } from 'node:child_process';
import type { StructureFault, StructureLimits } from './check-structure.ts';

export interface CheckJob {
  id: number;
  path: string;
  limits: StructureLimits;
}

export type CheckReply = { id: number; fault: StructureFault | null } | { id: number; error: string };

/**
 * Where the checker's module is: beside this one in the sources; at dist/'s top in a build, where
 * scripts/build.js writes it as an entry of its own.
 */
const CHECKER = import.meta.url.endsWith('.ts')
  ? new URL('./structure-checker.ts', import.meta.url)
  : new URL('../../pdf-structure-checker.js', import.meta.url);

let checker: ChildProcess | null = null;
/** The checks asked and not answered, each with the checker asked (one that ends fails its own only). */
const pending = new Map<number, { child: ChildProcess; resolve: (fault: StructureFault | null) => void; reject: (error: Error) => void }>();
let nextId = 1;
let exitHook = false;

/**
 * Checks the structure of the document at `path` (its private copy) in the checker process
 * (structure-checker.ts), started for the documents in hand and ended as soon as none waits: a
 * release's documents share one, and its memory is back to the system before their pages are read.
 * Resolves with the fault found, or null; rejects when the checker ends without an answer.
 */
export function checkInProcess(path: string, limits: StructureLimits): Promise<StructureFault | null> {
  const id = nextId++;
  return new Promise((resolve, reject) => {
    const child = running();
    pending.set(id, { child, resolve, reject });
    child.send({ id, path, limits } satisfies CheckJob);
  });
}

function running(): ChildProcess {
  if (checker) return checker;
  if (!exitHook) {
    // Every way the command exits ends its checker (it ends by itself, too, once the command is gone).
    process.once('exit', () => checker?.kill('SIGKILL'));
    exitHook = true;
  }
  // No inherited flags (a test runner's): the checker needs none.
  const child = fork(CHECKER, [], { execArgv: [], serialization: 'advanced', stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
  checker = child;
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-2000)));
  child.on('message', (reply: CheckReply) => {
    const waiting = pending.get(reply.id);
    if (!waiting) return;
    pending.delete(reply.id);
    if ('error' in reply) waiting.reject(new Error(`the structure check failed: ${reply.error}`));
    else waiting.resolve(reply.fault);
    // None waits: the checker ends now, and with it all it held.
    if (checker === child && ![...pending.values()].some((waiting) => waiting.child === child)) {
      checker = null;
      child.kill('SIGKILL');
    }
  });
  const ended = (why: string) => {
    if (checker === child) checker = null;
    for (const [id, waiting] of pending) {
      if (waiting.child !== child) continue;
      pending.delete(id);
      waiting.reject(
        new Error(`the structure checker ended (${why}) before it answered${stderr.trim() ? `: ${stderr.trim().split('\n').at(-1)}` : ''}`),
      );
    }
  };
  child.once('error', (error) => ended(error.message));
  child.once('exit', (code, signal) => ended(signal ?? `exit ${code}`));
  return child;
}
