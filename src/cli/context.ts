import { resolve } from 'node:path';
import { checkDataDirFormat } from '../config/data-dir-format.ts';
import { resolveSettings } from '../config/resolve-settings.ts';
import type { Settings } from '../config/settings.ts';
import { errors } from '../errors.ts';
import { MAX_STORED_INTEGER } from '../registry/records.ts';
import type { Registry } from '../registry/registry.ts';
import type { Bucket } from '../storage/bucket.ts';
import { openBucket } from '../storage/open-bucket.ts';
import { dateInRome, parseCalendarDate } from '../util/dates.ts';
import { printable } from '../util/clean-text.ts';
import { withPriority } from '../util/journal-stream.ts';
import { parseWholeNumber } from '../util/whole-number.ts';

/** The process edges a command may touch, passed in so tests can pin them. */
export interface CliIo {
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream;
  env: NodeJS.ProcessEnv;
  /** The day's clock, which SOURCE_DATE_EPOCH pins (what is built and dated). */
  now: () => Date;
  /** The machine's own clock, never pinned: the spans a run waits out are measured on it (a bucket's writer lease). */
  machineNow: () => Date;
  /**
   * Replaces this process by the same command with `args` added and these Node.js flags (the same
   * pid: signals, exit status and a launcher's watch carry over). Returns false where it cannot
   * (no process.execve on this system, or a command run inside another program, as tests do).
   */
  replace?: (args: string[], nodeFlags: readonly string[]) => false;
  /** stderr is systemd's journal (JOURNAL_STREAM): errors and warnings carry their priority's prefix (`<3>`, `<4>`). */
  journal?: boolean;
}

export interface GlobalOptions {
  dataDir: string;
  json: boolean;
}

/** Everything a command needs: the IO edges, the global options, and output helpers. */
export class CommandContext {
  #settings?: Promise<Settings>;

  readonly io: CliIo;
  readonly options: GlobalOptions;

  constructor(io: CliIo, options: GlobalOptions) {
    this.io = io;
    this.options = options;
  }

  get json(): boolean {
    return this.options.json;
  }

  get dataDir(): string {
    return resolve(this.options.dataDir);
  }

  /**
   * The run's settings: the command's options, the environment and `<data-dir>/config.json`,
   * resolved and validated (every problem at once) on the first call, then kept: a context serves
   * one command, whose first call passes its flags. Variables that look like settings but are none
   * are said once.
   */
  settings(flags: CommandFlags = {}): Promise<Settings> {
    // The data dir's format first: a newer tariff's data dir is not read, not even its config.json.
    this.#settings ??= checkDataDirFormat(this.dataDir)
      .then(() => resolveSettings({ flags, env: this.io.env, dataDir: this.dataDir }))
      .then(({ settings, warnings }) => {
        for (const warning of warnings) this.warn(warning);
        return settings;
      });
    return this.#settings;
  }

  /** The bucket the settings name (`--bucket`, TARIFF_BUCKET, config.json; default `<data-dir>/bucket`); `flags`: the command's options. */
  async bucket(flags: CommandFlags = {}): Promise<Bucket> {
    const settings = await this.settings(flags);
    return openBucket(settings.bucket, { dataDir: this.dataDir, settings, env: this.io.env });
  }

  /** Runs `work` as the bucket's only writer (the data dir's lock, then the bucket's writer lease). */
  async asBucketWriter<T>(bucket: Bucket, command: string, work: (leased: Bucket) => Promise<T>): Promise<T> {
    const settings = await this.settings();
    const { asBucketWriter } = await import('../pipeline/bucket-writer.ts');
    return asBucketWriter(bucket, { ...this.writer(settings), command }, work);
  }

  /** What a run that writes the bucket takes from the process: where its state lives, the machine's clock, its warnings. */
  writer(settings: Settings) {
    return { settings, dataDir: this.dataDir, machineNow: this.io.machineNow, warn: (line: string) => this.warn(line) };
  }

  /** Runs `work` on the registry the settings name, closing it after. */
  async withRegistry<T>(work: (registry: Registry, settings: Settings) => Promise<T>): Promise<T> {
    const settings = await this.settings();
    // Loaded when a command needs the registry: the release pipeline does not.
    const [{ openRegistry }, { loadRules }] = await Promise.all([
      import('../registry/open-registry.ts'),
      import('../barcodes/load-rules.ts'),
    ]);
    const registry = await openRegistry({
      dataDir: this.dataDir,
      url: settings.registry,
      poolSize: settings.pgPoolSize,
      rules: loadRules(settings),
    });
    try {
      return await work(registry, settings);
    } finally {
      await registry.close();
    }
  }

  /** What every run of the release pipeline takes from the command line and the process. */
  async pipelineRun(options: { date?: string; allowShrink?: boolean; barcodes?: string; dryRun?: boolean; allowOtherDate?: boolean }) {
    return {
      ...this.writer(await this.settings(options)),
      env: this.io.env,
      now: this.io.now,
      date: buildDate(options.date, this.io.now()),
      allowShrink: options.allowShrink ?? false,
      allowOtherDate: options.allowOtherDate ?? false,
      barcodesFile: options.barcodes,
      dryRun: options.dryRun,
    };
  }

  /** A warning for the operator, on stderr: the run goes on. */
  warn(line: string): void {
    const said = `tariff: warning: ${printable(line)}\n`;
    this.io.stderr.write(this.io.journal ? withPriority(said, 'warning') : said);
  }

  /** A line for people: on stderr when stdout carries JSON, so stdout stays one document. */
  info(line: string): void {
    (this.json ? this.io.stderr : this.io.stdout).write(`${printable(line)}\n`);
  }

  /**
   * The command's result: JSON with --json, else the human text (if any), without the characters
   * a terminal would obey (a product name or an organisation may carry an escape sequence).
   */
  result(value: unknown, human?: string): void {
    if (this.json) this.io.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
    else if (human !== undefined) this.io.stdout.write(printable(human.endsWith('\n') ? human : `${human}\n`));
  }
}

/** Parses a --date value, or the current day in Italy when absent. */
export function buildDate(value: string | undefined, now: Date): string {
  if (value === undefined) return dateInRome(now);
  const date = parseCalendarDate(value);
  if (!date || !/^\d{4}-\d{2}-\d{2}$/.test(value.trim())) throw errors.usage(`--date ${value} is not a date in the form YYYY-MM-DD`);
  return date;
}

/**
 * A whole number given as an argument (not a setting): `--submit-limit 500`, `--adm-code 1001`.
 * At most what every registry engine stores, so SQLite and PostgreSQL take the same values.
 */
export function wholeArgument(value: string | undefined, option: string): number | undefined {
  if (value === undefined) return undefined;
  if (parseWholeNumber(value, 1, Number.MAX_SAFE_INTEGER) === null) throw errors.usage(`${option} ${value} is not a positive whole number`);
  const number = parseWholeNumber(value, 1, MAX_STORED_INTEGER);
  if (number === null) throw errors.usage(`${option} ${value} is more than ${MAX_STORED_INTEGER}, the largest the registry stores`);
  return number;
}

/**
 * A command's options as commander parsed them, by their camel-case names: the settings read the
 * ones that are settings (config/settings.ts), the command the others it declares.
 */
export type CommandFlags = Record<string, unknown>;

/** Wraps a command's action so it receives the context first and its own arguments after. */
export type Runner = <Args extends unknown[]>(
  action: (ctx: CommandContext, ...args: Args) => Promise<ExitStatus | void>,
  options?: { errorExit?: ExitStatus },
) => (...args: unknown[]) => Promise<void>;

/** 0 ok, 1 failure (or, for diff, "they differ"), 2 usage, 3 published but a step after the switch failed. */
export type ExitStatus = 0 | 1 | 2 | 3;
