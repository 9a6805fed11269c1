import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { errors } from '../errors.ts';
import { SETTING_SOURCES, settingsSchema, type SettingKey, type Settings } from './settings.ts';

export interface SettingInputs {
  /** The command's options, by commander's names; an option not given (or an empty list) does not count. */
  flags?: Record<string, unknown>;
  env: NodeJS.ProcessEnv;
  /** `<data-dir>/config.json` is read from here. */
  dataDir: string;
}

export interface ResolvedSettings {
  settings: Settings;
  /** Environment variables that look like settings but are none (a typo, most likely). */
  warnings: string[];
}

/**
 * Variables of ours read before the settings, by the process itself: the data dir, TARIFF_DEBUG
 * (where an internal error happened, on stderr: docs/operations.md), and the test and benchmark harnesses'.
 */
const NOT_SETTINGS = /^TARIFF_(DATA_DIR$|DEBUG$|TEST_|BENCH_)/;

const kebab = (name: string) => name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);

/**
 * The settings of one run, resolved once: each from its command-line option, else its environment
 * variable, else `<data-dir>/config.json`, else its default (settings.ts), and validated with
 * zod. Every problem is reported at once, each naming where the value came from.
 *
 * @example const { settings } = await resolveSettings({ flags: { bucket: 's3://releases/tariff' }, env: process.env, dataDir: './var' });
 */
export async function resolveSettings(inputs: SettingInputs): Promise<ResolvedSettings> {
  const problems: string[] = [];
  const path = join(inputs.dataDir, 'config.json');
  const file = await readConfigFile(path, problems);
  const raw: Record<string, unknown> = {};
  const origin = new Map<string, string>();
  for (const [key, source] of Object.entries(SETTING_SOURCES) as [SettingKey, (typeof SETTING_SOURCES)[SettingKey]][]) {
    const show = (value: unknown) => (source.secret ? '…' : Array.isArray(value) ? value.join(' ') : String(value));
    const flag = source.flag ? inputs.flags?.[source.flag] : undefined;
    const fromEnv = inputs.env[source.env];
    if (flag !== undefined && !(Array.isArray(flag) && flag.length === 0)) {
      raw[key] = flag;
      origin.set(key, `--${kebab(source.flag!)} ${show(flag)}`);
    } else if (fromEnv !== undefined && fromEnv !== '') {
      raw[key] = fromEnv;
      origin.set(key, `${source.env}=${show(fromEnv)}`);
    } else if (key in file) {
      if (source.secret) problems.push(`${path}: ${key} is a secret: set ${source.env} in the environment instead`);
      raw[key] = file[key];
      origin.set(key, `${path}: ${key}`);
    }
  }
  const parsed = settingsSchema.safeParse({ ...file, ...raw });
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const key = String(issue.path[0] ?? '');
      if (issue.code === 'unrecognized_keys')
        problems.push(`${path}: ${issue.keys.join(', ')} is not a setting (docs/operations.md lists them)`);
      else problems.push(`${origin.get(key) ?? key} is not ${issue.message}`);
    }
  }
  if (problems.length > 0)
    throw errors.settingInvalid(
      problems.length === 1 ? problems[0]! : `${problems.length} settings are not valid:\n  - ${problems.join('\n  - ')}`,
    );
  const known = new Set(Object.values(SETTING_SOURCES).map((source) => source.env));
  const warnings = Object.keys(inputs.env)
    .filter((name) => name.startsWith('TARIFF_') && !known.has(name) && !NOT_SETTINGS.test(name))
    .map((name) => `${name} is not a setting and is ignored (docs/operations.md lists them)`);
  return { settings: parsed.data!, warnings };
}

async function readConfigFile(path: string, problems: string[]): Promise<Record<string, unknown>> {
  const text = await readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return null;
    throw errors.usage(`${path}: cannot read it (${error.code ?? error.message})`);
  });
  if (text === null) return {};
  try {
    const json: unknown = JSON.parse(text);
    if (typeof json === 'object' && json !== null && !Array.isArray(json)) return json as Record<string, unknown>;
    problems.push(`${path}: not a JSON object`);
  } catch (error) {
    problems.push(`${path}: not JSON: ${(error as Error).message}`);
  }
  return {};
}
