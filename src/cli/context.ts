import { resolve } from 'node:path';
import { errors } from '../errors.ts';
import { parseCalendarDate } from '../util/dates.ts';

/** The process edges a command may touch, passed in so tests can pin them. */
export interface CliIo {
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream;
  env: NodeJS.ProcessEnv;
  now: () => Date;
}

export interface GlobalOptions {
  dataDir: string;
  json: boolean;
}

export const DEFAULT_BASE_URL = 'http://127.0.0.1:8080/v1';

/** Everything a command needs: the IO edges, the global options, and output helpers. */
export class CommandContext {
  constructor(
    readonly io: CliIo,
    readonly options: GlobalOptions,
  ) {}

  get json(): boolean {
    return this.options.json;
  }

  get dataDir(): string {
    return resolve(this.options.dataDir);
  }

  /** A line for people: on stderr when stdout carries JSON, so stdout stays one document. */
  info(line: string): void {
    (this.json ? this.io.stderr : this.io.stdout).write(`${line}\n`);
  }

  /** The command's result: JSON with --json, else the human text (if any). */
  result(value: unknown, human?: string): void {
    if (this.json) this.io.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
    else if (human !== undefined) this.io.stdout.write(human.endsWith('\n') ? human : `${human}\n`);
  }
}

/** Parses a --date value, or the current day in Italy when absent. */
export function buildDate(value: string | undefined, now: Date, dateInRome: (instant: Date) => string): string {
  if (value === undefined) return dateInRome(now);
  const date = parseCalendarDate(value);
  if (!date || !/^\d{4}-\d{2}-\d{2}$/.test(value.trim())) throw errors.usage(`--date ${value} is not a date in the form YYYY-MM-DD`);
  return date;
}

export function parsePercent(value: string, option: string): number {
  const number = Number(value);
  if (!/^\d+(\.\d+)?$/.test(value) || number > 100) throw errors.usage(`${option} ${value} is not a percentage between 0 and 100`);
  return number / 100;
}

/** Wraps a command's action so it receives the context first and its own arguments after. */
export type Runner = <Args extends unknown[]>(
  action: (ctx: CommandContext, ...args: Args) => Promise<ExitStatus | void>,
  options?: { errorExit?: ExitStatus },
) => (...args: unknown[]) => Promise<void>;

/** 0 ok, 1 failure (or, for diff, "they differ"), 2 usage. */
export type ExitStatus = 0 | 1 | 2;
