import { readFileSync } from 'node:fs';

/** The builder's version, from package.json: what `tariff --version` prints and a release's provenance names. */
export function builderVersion(): string {
  return (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
}
