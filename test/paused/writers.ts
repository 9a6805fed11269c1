import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { afterAll, afterEach } from 'vitest';
import { CLI, REPO, type CliResult } from '../helpers/run-cli.ts';

/**
 * Writer A of the paused matrices, started stopped at its failpoint: as a real `tariff` process
 * (SIGSTOP, SIGCONT: the signals, exit codes and launcher of a real run) or as a command in a
 * worker thread kept warm (Atomics.wait freezes the thread as SIGSTOP freezes a process, without
 * a process's start-up: 80–90 % of a command's CPU). Whatever way a test ends, even cancelled,
 * no writer it started is left stopped or running.
 */
export interface RunningWriter {
  /** True while it is stopped at its failpoint. */
  stopped(): boolean;
  /** True once it has ended. */
  ended(): boolean;
  resume(): void;
  exited: Promise<CliResult>;
}

export type WriterKind = 'process' | 'thread';

/** The writers alive now, ended by `endAll` (after each test, and when the test process exits). */
const alive = new Set<{ end(): void }>();

/** Ends every writer still alive: continued and killed (a stopped process takes no SIGTERM). */
export function endAll(): void {
  for (const writer of alive) writer.end();
  alive.clear();
}

let hooked = false;
/** Registers the hooks that end what a test left (once per test file). */
export function endWritersAfterEachTest(): void {
  if (hooked) return;
  hooked = true;
  afterEach(endAll);
  afterAll(async () => {
    endAll();
    await thread?.close();
    thread = null;
  });
  // A cancelled run (Ctrl-C, vitest's teardown) exits the test process without the hooks.
  process.once('exit', endAll);
}

/** Starts `args` as machine A: a process (with `env` over the test's own) or a command in the warm thread. */
export function startWriter(kind: WriterKind, args: string[], env: Record<string, string>): RunningWriter {
  return kind === 'process' ? startProcess(args, env) : (thread ??= new WriterThread()).start(args, env);
}

/** The state of a process by /proc (T: stopped), or null once it has ended. */
function processState(pid: number): string | null {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[0]!;
  } catch {
    return null;
  }
}

function startProcess(args: string[], env: Record<string, string>): RunningWriter {
  // setpriv's parent-death signal: should the test process itself be killed, the kernel kills A
  // too, stopped or not (no hook of ours runs then).
  const child: ChildProcess = spawn('setpriv', ['--pdeathsig', 'KILL', '--', process.execPath, CLI, ...args], {
    cwd: REPO,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const out = { stdout: '', stderr: '' };
  child.stdout!.on('data', (chunk: Buffer) => (out.stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (out.stderr += chunk.toString()));
  let ended = false;
  const handle = {
    end: () => {
      if (ended) return;
      child.kill('SIGKILL');
    },
  };
  alive.add(handle);
  const exited = new Promise<CliResult>((resolve) =>
    child.on('close', (code, signal) => {
      ended = true;
      alive.delete(handle);
      resolve({ status: code ?? (signal ? 128 : 1), ...out });
    }),
  );
  return {
    stopped: () => !ended && processState(child.pid!) === 'T',
    ended: () => ended,
    resume: () => child.kill('SIGCONT'),
    exited,
  };
}

type FromThread = { type: 'stopped'; line: string } | { type: 'exit'; status: number; stdout: string; stderr: string };

/** One worker thread running writer A's commands one at a time (test/paused/writer-thread.mjs). */
class WriterThread {
  private worker: Worker | null = null;
  private current: { onMessage(message: FromThread): void; onExit(code: number): void } | null = null;

  private spawnWorker(): Worker {
    const worker = new Worker(new URL('./writer-thread.mjs', import.meta.url));
    worker.on('message', (message: FromThread) => this.current?.onMessage(message));
    worker.on('error', (error) =>
      this.current?.onMessage({ type: 'exit', status: 70, stdout: '', stderr: `writer thread: ${error.stack}` }),
    );
    worker.on('exit', (code) => {
      if (this.worker === worker) this.worker = null;
      this.current?.onExit(code);
    });
    return worker;
  }

  start(args: string[], env: Record<string, string>): RunningWriter {
    if (this.current) throw new Error('the writer thread runs one command at a time');
    const worker = (this.worker ??= this.spawnWorker());
    const cell = new SharedArrayBuffer(4);
    const resumed = new Int32Array(cell);
    let stopped = false;
    let ended = false;
    let settle!: (result: CliResult) => void;
    const exited = new Promise<CliResult>((resolve) => (settle = resolve));
    const finish = (result: CliResult) => {
      ended = true;
      stopped = false;
      this.current = null;
      alive.delete(handle);
      settle(result);
    };
    const resume = () => {
      stopped = false;
      Atomics.store(resumed, 0, 1);
      Atomics.notify(resumed, 0);
    };
    // A thread left stopped is let go and replaced: its command may not finish in time.
    const handle = {
      end: () => {
        if (ended) return;
        resume();
        void worker.terminate();
      },
    };
    alive.add(handle);
    this.current = {
      onMessage: (message) => {
        if (message.type === 'stopped') stopped = true;
        if (message.type === 'exit') finish({ status: message.status, stdout: message.stdout, stderr: message.stderr });
      },
      onExit: (code) => finish({ status: code, stdout: '', stderr: `writer thread exited (${code}) before its command ended` }),
    };
    worker.postMessage({ args, env: { ...process.env, ...env }, cell });
    return { stopped: () => stopped, ended: () => ended, resume, exited };
  }

  async close(): Promise<void> {
    await this.worker?.terminate();
    this.worker = null;
  }
}

let thread: WriterThread | null = null;
