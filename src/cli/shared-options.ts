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
