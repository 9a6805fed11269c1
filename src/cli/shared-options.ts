import type { Command } from 'commander';

/** Options several commands take, written once: each is a setting (src/config/settings.ts). */
export const BUCKET_OPTION = [
  '--bucket <uri>',
  'bucket: s3://bucket/prefix or a folder (env TARIFF_BUCKET, default <data-dir>/bucket)',
] as const;

export const KEEP_OPTION = ['--keep <n>', 'releases kept in the bucket (env TARIFF_KEEP, default 30)'] as const;

export const SOURCE_URL_OPTION = [
  '--source-url <url...>',
  "one document's URL, a PDF list or notice or an XML feed (repeatable; env TARIFF_SOURCE_URLS, or sourceUrls in <data-dir>/config.json)",
] as const;

export const SOURCE_PAGE_OPTION = [
  '--source-page <url...>',
  'an authority page linking to the current lists or to notices, e.g. its price page (repeatable; env TARIFF_SOURCE_PAGES, or sourcePages in <data-dir>/config.json)',
] as const;

/** The options of the commands that build a release (build, release): each a setting or an argument of the run. */
export const BUILD_OPTIONS = [
  ['--date <YYYY-MM-DD>', 'build the tariff in force on this day (default: today in Europe/Rome)'],
  ['--base-url <url>', 'public base URL of the files in the manifest (env TARIFF_BASE_URL, default http://127.0.0.1:8080/v1)'],
  ['--barcodes <file>', 'approved barcode matches to include (CSV, see docs/dataset.md)'],
  ['--allow-shrink', 'accept a tariff that drops more products than --max-shrink allows'],
  ['--max-shrink <percent>', 'largest share of the previous products a release may drop (env TARIFF_MAX_SHRINK, default 20)'],
] as const;

/** Adds options given as [flags, description] to a command. */
export function withOptions(command: Command, ...options: (readonly [string, string])[]): Command {
  for (const [flags, description] of options) command.option(flags, description);
  return command;
}
