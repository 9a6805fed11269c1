import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { CLI, REPO } from './run-cli.ts';

/** A running service as a test sees it: its address, its log, and a way to stop it. */
export interface RunningServe {
  url: string;
  /** Every JSON line the service logged so far. */
  log: Record<string, unknown>[];
  /** What it wrote on stderr so far. */
  stderr(): Promise<string>;
  /** The first line logged (so far or from now on) that `matches`: waits for the event itself, never polls. */
  logged(matches: (entry: Record<string, unknown>) => boolean): Promise<Record<string, unknown>>;
  stop(): Promise<number | null>;
}

export interface ServeProcess extends RunningServe {
  child: ChildProcess;
}

/** Beyond the service's own shutdown grace (10 s by default) and the kill of a stuck worker. */
const STOP_LIMIT_MS = 30_000;
/** The longest a service may take to listen before the test fails (it resolves as soon as it listens). */
const START_LIMIT_MS = 600_000;

/** Starts `tariff serve` (or `tariff start`) as a real process on an ephemeral loopback port. */
export function startServe(args: string[], env: Record<string, string> = {}): Promise<ServeProcess> {
  const child = spawn(process.execPath, [CLI, ...args, '--host', '127.0.0.1', '--port', '0'], {
    cwd: REPO,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const log: Record<string, unknown>[] = [];
  const waiting: { matches: (entry: Record<string, unknown>) => boolean; resolve: (entry: Record<string, unknown>) => void }[] = [];
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    // A guard, not a wait: `tariff start` builds and publishes the real lists first, past half a minute on a busy machine.
    const timer = setTimeout(() => reject(new Error(`tariff serve did not start: ${stderr}`)), START_LIMIT_MS);
    child.once('exit', (code) => reject(new Error(`tariff serve exited with ${code}: ${stderr}`)));
    let started = false;
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const entry = JSON.parse(line) as Record<string, unknown>;
      log.push(entry);
      for (const waiter of waiting.filter((w) => w.matches(entry))) {
        waiting.splice(waiting.indexOf(waiter), 1);
        waiter.resolve(entry);
      }
      // The first listening line: with --workers each worker logs its own too, and one may come
      // while the test is stopping the service (its exit listener must stay).
      if (entry.event === 'service.listening' && !started) {
        started = true;
        clearTimeout(timer);
        child.removeAllListeners('exit');
        resolve({
          url: String(entry.url),
          child,
          log,
          stderr: async () => stderr,
          logged: (matches) =>
            new Promise((resolve) => {
              const seen = log.find(matches);
              if (seen) resolve(seen);
              else waiting.push({ matches, resolve });
            }),
          stop: () =>
            new Promise((done, fail) => {
              // A service that does not stop is a failure to read, not a hook timing out in silence.
              const hung = setTimeout(() => {
                child.kill('SIGKILL');
                fail(new Error(`tariff serve did not stop on SIGTERM; its log: ${JSON.stringify(log.slice(-5))}; stderr: ${stderr}`));
              }, STOP_LIMIT_MS);
              child.once('exit', (code) => {
                clearTimeout(hung);
                done(code);
              });
              child.kill('SIGTERM');
            }),
        });
      }
    });
  });
}

/**
 * The /v1 requests the service logged from index `from` on, once every request already answered
 * is in the log: the service writes its log after the answer (and a process's log crosses a
 * pipe), so a probe request is made and its own line awaited; the lines before it are complete.
 */
/**
 * The service's log once every request answered so far is in it: a request's line is written as
 * its answer finishes, which a busy machine may let a client see first. A probe of /healthz, sent
 * after them, is logged after them.
 */
async function logFlushed(service: RunningServe): Promise<void> {
  const probeFrom = service.log.length;
  const probed = service.logged((entry) => service.log.indexOf(entry) >= probeFrom && entry.path === '/healthz');
  await (await fetch(`${service.url}/healthz`)).arrayBuffer();
  await probed;
}

/** Where the log stands once every request answered so far is in it: a `from` for v1RequestsSince. */
export async function logPosition(service: RunningServe): Promise<number> {
  await logFlushed(service);
  return service.log.length;
}

export async function v1RequestsSince(service: RunningServe, from: number): Promise<string[]> {
  await logFlushed(service);
  return service.log
    .slice(from)
    .filter((entry) => typeof entry.path === 'string' && String(entry.path).startsWith('/v1/'))
    .map((entry) => `${entry.path} ${entry.status}`);
}
