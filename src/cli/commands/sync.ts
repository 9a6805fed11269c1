import { readFile, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { Option, type Command } from 'commander';
import { errors } from '../../errors.ts';
import { FORMATS, type Format } from '../../release/manifest.ts';
import { isPinnedKey, parseTrustedKeys, type TrustedKey } from '../../release/signing-keys.ts';
import { syncDataset } from '../../sync/sync-dataset.ts';
import { acquireLock } from '../../util/run-lock.ts';
import type { CommandContext, CommandFlags, Runner } from '../context.ts';
import { READ_LIMIT } from '../../registry/records.ts';

type SyncCommandOptions = CommandFlags & {
  api?: string;
  format: Format;
  dest: string;
  keyFile?: string;
  check?: boolean;
};

export function registerSync(program: Command, run: Runner): void {
  program
    .command('sync')
    .description(
      'Keep a local copy of the dataset current from the /v1 service: one /version call, one download only when the version changed (for cron at a point of sale)',
    )
    .option('--api <base-url>', "the service's API base URL, with /v1 (env TARIFF_API_URL)")
    .addOption(new Option('--format <format>', 'the format to install').choices([...FORMATS]).makeOptionMandatory())
    .requiredOption('--dest <dir>', 'where the dataset is installed (dataset.<format>) with sync-state.json')
    .option('--key-file <file>', 'file holding the API key (else env TARIFF_API_KEY; never on the command line, where ps shows it)')
    .option(
      '--public-key <key...>',
      'trust manifests signed by this key: <key id>:<base64> as tariff signing-key list prints it, or a file (keys.json, a PEM public key); repeat for a rotation (env TARIFF_SYNC_PUBLIC_KEY)',
    )
    .option('--check', 'hash the installed copy even when its size and modification time are as installed (a weekly run, say)')
    .addHelpText(
      'after',
      '\nEvery run checks the installed copy (size and modification time; its SHA-256 when they changed): a missing, changed or unreadable copy is downloaded again and reported as repaired.' +
        '\nQuiet when the installed copy is current. Exit status: 0 current or updated, 1 failure (the installed copy is unchanged), 2 usage.' +
        '\nAfter a 429 or a server error it records when the service said to try again, and until then makes no call.' +
        `\n\nExample (crontab, twice a day, within the ${READ_LIMIT} reads a day):\n  17 6,18 * * *  tariff sync --api https://tariffa.example.it/v1 --format sqlite --dest /var/lib/cassa/tariffa --key-file /etc/cassa/tariffa.key`,
    )
    .action(run(syncCommand));
}

async function syncCommand(ctx: CommandContext, options: SyncCommandOptions): Promise<void> {
  const settings = await ctx.settings(options);
  const api = settings.apiUrl;
  if (!api) throw errors.usage('give the service with --api <base-url> (or TARIFF_API_URL), e.g. https://tariffa.example.it/v1');
  const key = await apiKey(ctx, options.keyFile, settings.apiKey);
  const dest = resolve(options.dest);
  const deadlineSeconds = settings.syncDeadlineSeconds;
  const unlock = await acquireLock(dest, 'sync', settings.lockStaleSeconds * 1000);
  try {
    const publicKeys = await pinnedKeys(settings.syncPublicKeys);
    const result = await syncDataset({
      api,
      format: options.format,
      dest,
      key,
      now: ctx.io.now,
      deadlineMs: deadlineSeconds * 1000,
      publicKeys,
      check: options.check,
    });
    // Quiet when current, for cron: only news is printed.
    ctx.result(
      result,
      result.status === 'updated'
        ? `updated ${result.version} (was ${result.previousVersion ?? 'none'}): ${result.file}`
        : result.status === 'repaired'
          ? `repaired ${result.version} (${result.repaired}): ${result.file}`
          : undefined,
    );
  } finally {
    await unlock();
  }
}

/** The keys --public-key (or TARIFF_SYNC_PUBLIC_KEY) names: each `<id>:<base64>` or a file holding keys. */
async function pinnedKeys(specs: string[]): Promise<TrustedKey[]> {
  const keys: TrustedKey[] = [];
  for (const spec of specs) {
    const text = isPinnedKey(spec) ? spec : await readFile(spec, 'utf8').catch(() => null);
    if (text === null) throw errors.usage(`--public-key ${spec}: neither <key id>:<base64> nor a readable file`);
    try {
      keys.push(...parseTrustedKeys(text));
    } catch (error) {
      throw errors.usage(`--public-key ${spec}: not a public key (${(error as Error).message})`);
    }
  }
  return keys;
}

/** The key from --key-file or TARIFF_API_KEY: never an argument, which any user's `ps` shows. */
async function apiKey(ctx: CommandContext, keyFile: string | undefined, fromEnv: string | undefined): Promise<string> {
  if (keyFile) {
    let text: string;
    try {
      text = await readFile(keyFile, 'utf8');
    } catch (error) {
      throw errors.usage(`--key-file ${keyFile}: cannot read it (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
    }
    const key = text.trim();
    if (!key || /\s/.test(key)) throw errors.usage(`--key-file ${keyFile}: it should hold one API key on one line`);
    const mode = (await stat(keyFile)).mode;
    if (mode & 0o077)
      ctx.io.stderr.write(`tariff: warning: ${keyFile} can be read by other users (mode ${(mode & 0o777).toString(8)}); chmod 600 it\n`);
    return key;
  }
  const key = fromEnv?.trim();
  if (!key) throw errors.usage('no API key: give --key-file <file>, or set TARIFF_API_KEY');
  return key;
}
