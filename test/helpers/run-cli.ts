import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const CLI = fileURLToPath(new URL('../../bin/tariff.js', import.meta.url));
export const REPO = fileURLToPath(new URL('../..', import.meta.url));

export interface CliResult {
  status: number;
  stdout: string;
  stderr: string;
}

/** Runs `tariff` as a real process, as cron or CI would. */
export function runCli(args: string[], options: { env?: Record<string, string>; cwd?: string } = {}): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [CLI, ...args],
      { cwd: options.cwd ?? REPO, env: { ...process.env, NO_COLOR: '1', ...options.env }, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => resolve({ status: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
  });
}

/**
 * The environment of a run on `date` (YYYY-MM-DD, noon in Italy): SOURCE_DATE_EPOCH pins the
 * CLI's clock, so `tariff release` builds that day's tariff as the cron job would on that day.
 */
export function onDay(date: string): Record<string, string> {
  return { SOURCE_DATE_EPOCH: String(Date.parse(`${date}T11:00:00Z`) / 1000) };
}
