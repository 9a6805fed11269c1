import { readFileSync } from 'node:fs';

/** A unit file's settings: section → key → every value given (a key may repeat). */
export type UnitFile = Record<string, Record<string, string[]>>;

export function readUnit(path: string): UnitFile {
  const unit: UnitFile = {};
  let section = '';
  for (const raw of readFileSync(path, 'utf8').split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const header = /^\[(.+)\]$/.exec(line);
    if (header) {
      section = header[1]!;
      unit[section] ??= {};
      continue;
    }
    const at = line.indexOf('=');
    const key = line.slice(0, at);
    (unit[section]![key] ??= []).push(line.slice(at + 1));
  }
  return unit;
}

/** KEY=value lines, as EnvironmentFile= reads them (no shell: quotes around a value are dropped). */
export function parseEnvironmentFile(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const match = /^\s*([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(line);
    if (match) env[match[1]!] = match[2]!.replace(/^"(.*)"$/, '$1');
  }
  return env;
}

/**
 * What systemd runs for a unit's ExecStart=, and with what environment: its Environment= lines
 * (specifiers %S, %n expanded), then the environment file (which overrides them, as in systemd),
 * then what systemd itself sets (STATE_DIRECTORY, CREDENTIALS_DIRECTORY); `${VAR}` in the command
 * line expanded from that environment, words split on white space as systemd splits them.
 */
export function execStart(
  unit: UnitFile,
  name: string,
  environmentFile: Record<string, string>,
  managed: { stateDirectory: string; credentialsDirectory?: string; stateRoot: string },
): { argv: string[]; env: Record<string, string> } {
  const service = unit.Service ?? {};
  const specifiers = (value: string) => value.replaceAll('%S', managed.stateRoot).replaceAll('%n', name);
  const env: Record<string, string> = {};
  for (const line of service.Environment ?? []) {
    const text = specifiers(line);
    const at = text.indexOf('=');
    env[text.slice(0, at)] = text.slice(at + 1);
  }
  Object.assign(env, environmentFile, {
    STATE_DIRECTORY: managed.stateDirectory,
    ...(managed.credentialsDirectory ? { CREDENTIALS_DIRECTORY: managed.credentialsDirectory } : {}),
  });
  const [command] = service.ExecStart ?? [];
  if (!command) throw new Error(`${name} has no ExecStart`);
  const argv = specifiers(command)
    .split(/\s+/)
    .filter(Boolean)
    .map((word) => word.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, variable: string) => env[variable] ?? ''));
  return { argv, env };
}
