import { Writable } from 'node:stream';
import { Command, CommanderError, type Option } from 'commander';
import { describe, expect, it } from 'vitest';
import type { Runner } from '../../src/cli/context.ts';
import { actionArguments, cliIo, tariffProgram } from '../../src/cli/main.ts';

const silent = () => new Writable({ write: (_chunk, _encoding, done) => done() });
const io = cliIo({}, { stdout: silent(), stderr: silent() });

/** What an action was called with: the options it receives and the options with the program's globals. */
interface Call {
  options: Record<string, unknown>;
  globals: Record<string, unknown>;
}

/** Parses `argv` as `tariff` does, recording what the action would receive instead of running it. */
async function parse(argv: string[]): Promise<Call | CommanderError> {
  let call: Call | undefined;
  const record: Runner =
    () =>
    async (...args) => {
      const { options, command } = actionArguments(args);
      call = { options, globals: command.optsWithGlobals() };
    };
  const program = await tariffProgram(['node', 'tariff', ...argv], io, record);
  try {
    await program.parseAsync(['node', 'tariff', ...argv]);
  } catch (error) {
    if (error instanceof CommanderError) return error;
    throw error;
  }
  if (!call) throw new Error(`no action ran for ${argv.join(' ')}`);
  return call;
}

/** Every command that runs an action, with the chain of commands that leads to it. */
async function commandsOf(): Promise<Command[][]> {
  const program = await tariffProgram(['node', 'tariff', '--help'], io, () => async () => {});
  const chains: Command[][] = [];
  const walk = (chain: Command[]) => {
    const command = chain.at(-1)!;
    if (command.commands.length === 0) chains.push(chain);
    for (const sub of command.commands) walk([...chain, sub]);
  };
  for (const command of program.commands) walk([command]);
  return chains;
}

/** A value for an option: one of its choices when it has them, else a value no default could be. */
const valueFor = (option: Option, tag: string) => (option.argChoices ? option.argChoices.at(-1)! : `v-${tag}`);

/** The arguments that give an option a value, and what the action should then see. */
function given(option: Option, tag: string): { argv: string[]; expected: unknown } {
  const flag = option.long ?? option.short!;
  if (option.negate) return { argv: [flag], expected: false };
  if (!option.required && !option.optional) return { argv: [flag], expected: true };
  const value = valueFor(option, tag);
  return { argv: [flag, value], expected: option.variadic ? [value] : value };
}

/** The operands a command requires, and its mandatory options other than `except`. */
function required(command: Command, except?: Option): string[] {
  const operands = command.registeredArguments.filter((argument) => argument.required).map((argument) => argument.argChoices?.[0] ?? 'x');
  const mandatory = command.options
    .filter((option) => option.mandatory && option !== except)
    .flatMap((option) => given(option, 'mandatory').argv);
  return [...operands, ...mandatory];
}

const chains = await commandsOf();
const path = (chain: Command[]) => chain.map((command) => command.name());

describe('every option of every command reaches its action', () => {
  it('finds the commands (the walk is not empty)', () => {
    expect(chains.map((chain) => path(chain).join(' '))).toEqual(expect.arrayContaining(['history import', 'sync', 'publish']));
  });

  for (const chain of chains) {
    const leaf = chain.at(-1)!;
    const name = path(chain).join(' ');
    // Each option of the command and of the commands above it, in each place commander takes it.
    const cases = chain.flatMap((owner, depth) =>
      owner.options.map((option) => ({ owner, option, depth })).filter(({ option }) => option.long !== '--help'),
    );
    if (cases.length === 0) continue;
    it(`${name}: ${cases.map(({ option }) => option.long).join(' ')}`, async () => {
      for (const { option, depth } of cases) {
        const tag = `${name.replace(/ /g, '-')}${option.long}`;
        const { argv: flag, expected } = given(option, tag);
        const attribute = option.attributeName();
        const places = [
          // After the command's own operands: the usual place.
          [...path(chain), ...required(leaf, option), ...flag],
          // Right after the command that defines it, before its subcommand.
          [...path(chain).slice(0, depth + 1), ...flag, ...path(chain).slice(depth + 1), ...required(leaf, option)],
        ];
        for (const argv of places) {
          const outcome = await parse(argv);
          if (outcome instanceof CommanderError) {
            // Refused as a usage error is a verdict too: never silently absorbed.
            expect(outcome.code, `${argv.join(' ')}: ${outcome.message}`).toMatch(/^commander\./);
            continue;
          }
          const seen = outcome.options[attribute];
          if (option.parseArg) expect(seen, `${argv.join(' ')} → ${attribute}`).not.toBeUndefined();
          else expect(seen, `${argv.join(' ')} → ${attribute}`).toEqual(expected);
        }
      }
    });
  }

  it('the program-wide options reach the command in either place', async () => {
    for (const argv of [
      ['--data-dir', 'v-data', 'history', 'import', 'x'],
      ['history', 'import', 'x', '--data-dir', 'v-data'],
    ]) {
      const outcome = await parse(argv);
      expect(outcome).not.toBeInstanceOf(CommanderError);
      expect((outcome as Call).globals.dataDir).toBe('v-data');
    }
  });

  it('tariff history import takes --bucket whether it stands before or after import', async () => {
    for (const argv of [
      ['history', 'import', 'list.pdf', '--bucket', 's3://after/x'],
      ['history', '--bucket', 's3://after/x', 'import', 'list.pdf'],
    ])
      expect(((await parse(argv)) as Call).options.bucket).toBe('s3://after/x');
  });
});
