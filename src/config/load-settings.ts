import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { errors } from '../errors.ts';

/** `<data-dir>/config.json`: the settings an operator would rather not repeat in crontab. */
const configSchema = z.strictObject({
  sourceUrls: z.array(z.string().url()).optional(),
  sourcePages: z.array(z.string().url()).optional(),
  bucket: z.string().optional(),
  baseUrl: z.string().url().optional(),
  keep: z.number().int().min(1).optional(),
});

export type ConfigFile = z.infer<typeof configSchema>;

export async function readConfigFile(dataDir: string): Promise<ConfigFile> {
  const path = join(dataDir, 'config.json');
  const text = await readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return null;
    throw error;
  });
  if (text === null) return {};
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw errors.usage(`${path}: not JSON: ${(error as Error).message}`);
  }
  const parsed = configSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw errors.usage(`${path}: ${issue.path.join('.') || '(root)'}: ${issue.message}`);
  }
  return parsed.data;
}

/** Source URLs: the command line, else TARIFF_SOURCE_URLS (space- or comma-separated), else config.json. */
export function sourceUrls(fromCli: string[] | undefined, env: NodeJS.ProcessEnv, config: ConfigFile): string[] {
  if (fromCli && fromCli.length > 0) return fromCli;
  const fromEnv = (env.TARIFF_SOURCE_URLS ?? '').split(/[\s,]+/).filter(Boolean);
  if (fromEnv.length > 0) return fromEnv;
  return config.sourceUrls ?? [];
}

/** The authority's pages: the command line, else TARIFF_SOURCE_PAGES (space- or comma-separated), else config.json. */
export function sourcePages(fromCli: string[] | undefined, env: NodeJS.ProcessEnv, config: ConfigFile): string[] {
  if (fromCli && fromCli.length > 0) return fromCli;
  const fromEnv = (env.TARIFF_SOURCE_PAGES ?? '').split(/[\s,]+/).filter(Boolean);
  if (fromEnv.length > 0) return fromEnv;
  return config.sourcePages ?? [];
}

export function positiveInteger(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < 1) throw errors.usage(`${name} ${value} is not a positive whole number`);
  return Number(value);
}
