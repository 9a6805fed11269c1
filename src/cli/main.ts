import { userInfo } from 'node:os';
import { Command, CommanderError } from 'commander';
import { errors, internalError, isTariffError, type TariffError } from '../errors.ts';
import { machineFault, machineFaultError } from '../util/machine-fault.ts';
import type { CliIo, ExitStatus, Runner } from './context.ts';
import { withPriority, writesToJournal } from '../util/journal-stream.ts';
import { printable } from '../util/clean-text.ts';
import { builderVersion } from '../util/builder-version.ts';

/** The program's stop on SIGINT and SIGTERM (bin/tariff.js installs it): what a command holds is let go. */
export { stopOnSignals } from '../util/orderly-stop.ts';
import { stopping } from '../util/orderly-stop.ts';

type Register = (program: Command, run: Runner) => void;

/**
 * Which module registers each command. Only the module of the command being run is loaded (the
 * others pull in the HTTP server, the S3 and mail clients …): a cron job's start-up stays short.
 */
const COMMAND_MODULES: Record<string, () => Promise<Register>> = {
  build: async () => (await import('./commands/build.ts')).registerBuild,
  inspect: async () => (await import('./commands/inspect.ts')).registerInspect,
  verify: async () => (await import('./commands/verify.ts')).registerVerify,
  diff: async () => (await import('./commands/diff.ts')).registerDiff,
  fetch: async () => (await import('./commands/fetch.ts')).registerFetch,
  publish: async () => (await import('./commands/publish.ts')).registerPublish,
  release: async () => (await import('./commands/release.ts')).registerRelease,
  serve: async () => (await import('./commands/serve.ts')).registerServe,
  accounts: async () => (await import('./commands/accounts.ts')).registerAccounts,
  keys: async () => (await import('./commands/keys.ts')).registerKeys,
  barcodes: async () => (await import('./commands/moderation.ts')).registerModeration,
  contributors: async () => (await import('./commands/contributors.ts')).registerContributors,
  start: async () => (await import('./commands/start.ts')).registerStart,
  sync: async () => (await import('./commands/sync.ts')).registerSync,
  'signing-key': async () => (await import('./commands/signing-key.ts')).registerSigningKey,
  history: async () => (await import('./commands/history.ts')).registerHistory,
  registry: async () => (await import('./commands/registry.ts')).registerRegistry,
  healthcheck: async () => (await import('./commands/healthcheck.ts')).registerHealthcheck,
};
const ALIASES: Record<string, string> = { rollback: 'publish', releases: 'publish' };

/** The command named on the command line (skipping global options and their values), if any. */
function requestedCommand(argv: string[]): string | undefined {
  const args = argv.slice(2);
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--data-dir') i++;
    else if (!args[i]!.startsWith('-')) return args[i];
  }
  return undefined;
}

/** The IO of a run in `env`, writing to `streams`: its clock pinned by SOURCE_DATE_EPOCH when set. */
export function cliIo(env: NodeJS.ProcessEnv, streams: Pick<CliIo, 'stdout' | 'stderr'>, machineNow: () => Date = () => new Date()): CliIo {
  const pinned = pinnedNow(env);
  // The process's own stderr given to systemd's journal: errors and warnings say their priority.
  const journal = streams.stderr === process.stderr && writesToJournal(env);
  return { ...streams, env, now: pinned ? () => new Date(pinned) : () => new Date(), machineNow, journal };
}

/**
 * SOURCE_DATE_EPOCH (reproducible-builds.org) pins the clock, so a rebuild's manifest is
 * byte-identical too. Read once: the service asks for the time on every request.
 */
function pinnedNow(env: NodeJS.ProcessEnv): number | null {
  const epoch = env.SOURCE_DATE_EPOCH;
  return epoch && /^\d+$/.test(epoch) ? Number(epoch) * 1000 : null;
}

/**
 * What a command's action is called with: its operands, then its options merged with those of the
 * commands between it and the program (`tariff history --bucket b import x` and `tariff history
 * import x --bucket b` both reach `import`), then the command itself. An option is never
 * absorbed by a parent and lost.
 */
export function actionArguments(args: unknown[]): { operands: unknown[]; options: Record<string, unknown>; command: Command } {
  const command = args.at(-1) as Command;
  const lineage: Command[] = [];
  for (let at: Command | null = command; at?.parent; at = at.parent) lineage.unshift(at);
  const options = Object.assign({}, ...lineage.map((each) => each.opts()));
  return { operands: args.slice(0, -2), options, command };
}

/**
 * The `tariff` program with the commands `argv` needs registered (all of them for help or an
 * unknown command), each action wrapped by `run`.
 */
export async function tariffProgram(argv: string[], io: CliIo, run: Runner): Promise<Command> {
  const program = new Command('tariff')
    .description('Builds, publishes and serves releases of the tariff of manufactured tobacco')
    .option('--data-dir <dir>', 'where state lives (env TARIFF_DATA_DIR)', io.env.TARIFF_DATA_DIR ?? './var')
    .option('--json', 'machine-readable output on stdout', false)
    .version(versionLine(), '--version', "the builder's version and the Node.js it runs on")
    .exitOverride()
    // Commander's parse errors are reported by main, in the form of every other usage error.
    .configureOutput({ writeOut: (text) => io.stdout.write(text), writeErr: (text) => io.stderr.write(text), outputError: () => {} });
  const name = requestedCommand(argv);
  const module = name ? COMMAND_MODULES[ALIASES[name] ?? name] : undefined;
  // PDFium takes a fifth of a second to load in the reader's threads: a command given PDFs starts
  // them now, while its own modules load, rather than when the first PDF is read.
  if ((name === 'build' || name === 'inspect') && argv.some((arg) => /\.pdf$/i.test(arg)))
    void import('../source/pdf/read-pdf-runs.ts').then((reader) => reader.prewarmPdfReader());
  // `tariff --help`, or an unknown command: every command is registered, for the list or the error;
  // `tariff --version` alone needs none of them (a monitoring script's call stays quick).
  const versionOnly = name === undefined && argv.includes('--version');
  const loaders = module ? [module] : versionOnly ? [] : Object.values(COMMAND_MODULES);
  for (const register of await Promise.all(loaders.map((load) => load()))) register(program, run);
  const overrideExits = (command: Command): void => {
    command.exitOverride();
    command.commands.forEach(overrideExits);
  };
  overrideExits(program);
  return program;
}

/**
 * The `tariff` command line. Parses arguments, runs one command, prints, and sets the exit
 * status it returns: 0 ok, 1 failure, 2 usage (diff: 0 identical, 1 different, 2 error).
 */
export async function main(argv: string[], io: CliIo): Promise<ExitStatus> {
  let status: ExitStatus = 0;
  const run: Runner =
    (action, options) =>
    async (...args) => {
      const { operands, options: own, command } = actionArguments(args);
      const globals = command.optsWithGlobals() as { dataDir: string; json: boolean };
      // Loaded here, with the command: the settings' schemas are a tenth of a second of start-up
      // that `tariff --version` and `--help` do without.
      const { CommandContext } = await import('./context.ts');
      try {
        // The action's own signature names its operands; commander hands them over untyped.
        const call = action as (ctx: InstanceType<typeof CommandContext>, ...rest: unknown[]) => Promise<ExitStatus | void>;
        status = (await call(new CommandContext(io, globals), ...operands, own)) ?? 0;
      } catch (error) {
        // Stopped by a signal: its line said what was let go; what fails after it is that, not news.
        if (stopping()) return;
        status = report(error, io, { json: globals.json, errorExit: options?.errorExit });
      }
    };
  const program = await tariffProgram(argv, io, run);
  try {
    await program.parseAsync(argv);
  } catch (error) {
    const json = argv.includes('--json');
    if (!(error instanceof CommanderError)) status = report(error, io, { json });
    // Help asked for, or shown for a command given without its subcommand: already written.
    else if (error.exitCode === 0 || HELP_SHOWN.has(error.code)) status = error.exitCode === 0 ? 0 : 2;
    else status = report(errors.commandUsage(error.message.replace(/^error: /, ''), commandPath(program, argv).join(' ')), io, { json });
  }
  return status;
}

/** Commander's codes for help it has written itself (the others are parse errors it leaves to us). */
const HELP_SHOWN = new Set(['commander.help', 'commander.helpDisplayed', 'commander.version']);

/** The names of the command and subcommands given on the command line, as far as they exist: ["barcodes", "approve"]. */
function commandPath(program: Command, argv: string[]): string[] {
  const path: string[] = [];
  let command = program;
  for (const arg of argv.slice(2)) {
    const sub = command.commands.find((candidate) => candidate.name() === arg || candidate.aliases().includes(arg));
    if (!sub) continue;
    path.push(arg);
    command = sub;
  }
  return path;
}

/** What `tariff --version` prints: the builder's version, which a release's provenance names, and the runtime's. */
function versionLine(): string {
  return `${builderVersion()} (Node.js ${process.versions.node})`;
}

function report(error: unknown, io: CliIo, { json, errorExit }: { json: boolean; errorExit?: ExitStatus | undefined }): ExitStatus {
  const fault = isTariffError(error) ? null : machineFault(error);
  const known: TariffError = isTariffError(error) ? error : fault ? machineFaultError(fault, userName()) : internalError(error);
  // Where it happened is for whoever debugs it, asked for: never in the message or --json.
  if (!isTariffError(error) && io.env.TARIFF_DEBUG === '1') io.stderr.write(`tariff: debug: ${(error as Error)?.stack ?? String(error)}\n`);
  const said = printable(`tariff: ${known.message}\n${known.hint ? `  ${known.hint}\n` : ''}`);
  io.stderr.write(io.journal ? withPriority(said, 'error') : said);
  // On GitHub Actions, the failure is also an annotation the run's page shows: on stderr, which the
  // runner reads for commands too, so a step that sends stdout somewhere (a job summary) keeps it out.
  if (io.env.GITHUB_ACTIONS === 'true') io.stderr.write(`${githubAnnotation('error', `tariff ${known.code}`, known.message)}\n`);
  if (json)
    io.stdout.write(
      `${JSON.stringify({ ok: false, error: { code: known.code, message: known.message, hint: known.hint ?? null } }, null, 2)}\n`,
    );
  return known.exitCode === 1 ? (errorExit ?? 1) : known.exitCode;
}

/** The user the command runs as, for a message about permissions. */
function userName(): string {
  try {
    return userInfo().username;
  } catch {
    return `uid ${process.getuid?.() ?? '?'}`;
  }
}

/**
 * A workflow command GitHub Actions shows as an annotation: `::error title=…::message`, with the
 * characters its format reserves escaped as its documentation says (`%`, line ends; `:` and `,` in properties).
 */
export function githubAnnotation(level: 'error' | 'warning', title: string, message: string): string {
  const data = (text: string) => printable(text).replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
  const property = (text: string) => data(text).replace(/:/g, '%3A').replace(/,/g, '%2C');
  return `::${level} title=${property(title)}::${data(message)}`;
}
