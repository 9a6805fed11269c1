import { execFile, type ChildProcess } from 'node:child_process';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { cliIo, main } from '../../src/cli/main.ts';

export const CLI = fileURLToPath(new URL('../../bin/tariff.js', import.meta.url));
export const REPO = fileURLToPath(new URL('../..', import.meta.url));

export interface CliResult {
  status: number;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  env?: Record<string, string>;
  /** Run `bin/tariff.js` as a real process, as cron or CI would (start-up, exit status, stray output). */
  process?: boolean;
  /** The working directory of a real process (an in-process run resolves paths from the repository, as vitest runs there). */
  cwd?: string;
  /** The machine's clock of an in-process run (a writer whose clock is minutes off); default the system's. */
  machineNow?: () => Date;
  /** Given the real process once started (a test that pauses it). */
  started?: (child: ChildProcess) => void;
}

/** A stream that keeps what is written to it, as text. */
class Captured extends Writable {
  private readonly chunks: Buffer[] = [];
  override _write(chunk: Buffer | string, _encoding: BufferEncoding, done: () => void): void {
    this.chunks.push(Buffer.from(chunk));
    done();
  }
  get text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
}

/**
 * Runs `tariff` with these arguments: in this process through the CLI's own `main` (the same
 * parsing, commands, output and exit status, without a process start per call), or, with
 * `process: true` or a `cwd`, as a real process.
 */
export async function runCli(args: string[], options: CliOptions = {}): Promise<CliResult> {
  if (options.process || options.cwd || options.started) return runCliProcess(args, options);
  const stdout = new Captured();
  const stderr = new Captured();
  const env = { ...process.env, NO_COLOR: '1', ...options.env };
  const status = await main([process.execPath, CLI, ...args], cliIo(env, { stdout, stderr }, options.machineNow));
  return { status, stdout: stdout.text, stderr: stderr.text };
}

/** Runs `tariff` as a real process, as cron or CI would. */
export function runCliProcess(args: string[], options: Omit<CliOptions, 'process'> = {}): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [CLI, ...args],
      { cwd: options.cwd ?? REPO, env: { ...process.env, NO_COLOR: '1', ...options.env }, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => resolve({ status: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
    options.started?.(child);
  });
}

/**
 * The environment of a run on `date` (YYYY-MM-DD, noon in Italy): SOURCE_DATE_EPOCH pins the
 * CLI's clock, so `tariff release` builds that day's tariff as the cron job would on that day.
 */
export function onDay(date: string): Record<string, string> {
  return { SOURCE_DATE_EPOCH: String(Date.parse(`${date}T11:00:00Z`) / 1000) };
}
