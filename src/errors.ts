/**
 * The catalogue of errors the release pipeline and the CLI can report.
 *
 * Every failure an operator can meet has a stable `code` (printed with `--json`, usable in
 * scripts), a message that says what went wrong and where, and a hint that says what to do.
 * The CLI maps `exitCode` to the process exit status; nothing below the CLI exits the process.
 *
 * @example
 *   throw errors.sourceInvalid('sigarette.xml line 12 (prodotto 1234)', 'prezzoConfezione is missing');
 */
export class TariffError extends Error {
  override readonly name = 'TariffError';
  constructor(
    readonly code: string,
    message: string,
    readonly hint?: string,
    readonly exitCode: 1 | 2 = 1,
  ) {
    super(message);
  }
}

export const errors = {
  usage: (message: string) => new TariffError('usage', message, 'Run `tariff --help` for the list of commands and options.', 2),

  sourceUnreadable: (where: string, detail: string) =>
    new TariffError('source_unreadable', `${where}: cannot read the tariff source: ${detail}`, 'Check the path or URL given to --source.'),

  sourceTooLarge: (where: string, maxBytes: number) =>
    new TariffError(
      'source_too_large',
      `${where}: the tariff source is larger than ${maxBytes} bytes`,
      'A tariff list is a few megabytes; check the source.',
    ),

  sourceMalformed: (where: string, detail: string) =>
    new TariffError(
      'source_malformed',
      `${where}: the XML is malformed: ${detail}`,
      'The download may be truncated or not a tariff list; fetch it again.',
    ),

  sourceInvalid: (where: string, detail: string) =>
    new TariffError('source_invalid', `${where}: ${detail}`, 'See docs/source-format.md for the expected elements and values.'),

  pdfUnreadable: (where: string, detail: string) =>
    new TariffError(
      'source_pdf_unreadable',
      `${where}: cannot read the PDF: ${detail}`,
      'Download the document again from the authority; an encrypted or damaged file cannot be read.',
    ),

  notPriceList: (where: string, detail: string) =>
    new TariffError(
      'source_not_price_list',
      `${where}: not a price list or price-change notice of the authority: ${detail}`,
      'See docs/source-format.md for the documents the builder reads.',
    ),

  tariffConflict: (where: string, detail: string) =>
    new TariffError(
      'tariff_conflict',
      `${where}: ${detail}`,
      'The same tariff code appears twice with different data; the sources disagree.',
    ),

  tariffEmpty: (detail: string) =>
    new TariffError('tariff_empty', `The tariff is empty: ${detail}`, 'A release needs at least one product; check the sources.'),

  noTariffInForce: (date: string, earliest: string) =>
    new TariffError(
      'no_tariff_in_force',
      `No tariff is in force on ${date}: the earliest source takes effect on ${earliest}`,
      'Pass --date on or after that day, or add the tariff in force.',
    ),

  barcodesInvalid: (where: string, detail: string) =>
    new TariffError('barcodes_invalid', `${where}: ${detail}`, 'See docs/dataset.md, section "Barcode list for --barcodes".'),

  shrinkRefused: (dropped: number, previous: number, maxShare: number) =>
    new TariffError(
      'shrink_refused',
      `The new tariff drops ${dropped} of the ${previous} products of the previous release (${((dropped / previous) * 100).toFixed(1)} %, more than ${(maxShare * 100).toFixed(0)} %)`,
      'A truncated download must not become a release. If the drop is real, run again with --allow-shrink.',
    ),

  categoryShrinkRefused: (category: string, dropped: number, previous: number, maxShare: number) =>
    new TariffError(
      'shrink_refused',
      `The new tariff drops ${dropped} of the ${previous} ${category} products of the previous release (${((dropped / previous) * 100).toFixed(1)} %, more than ${(maxShare * 100).toFixed(0)} %)`,
      "A missing or truncated category list must not empty a category. Check that category's source; if the drop is real, run again with --allow-shrink.",
    ),

  releaseUnreadable: (where: string, detail: string) =>
    new TariffError(
      'release_unreadable',
      `${where}: not a readable release: ${detail}`,
      'Give a release directory (with manifest.json) or a manifest.json file.',
    ),

  verifyFailed: (where: string, problems: string[]) =>
    new TariffError(
      'verify_failed',
      `${where}: the release does not verify:\n  - ${problems.join('\n  - ')}`,
      'Rebuild the release; do not publish it.',
    ),

  bucketFailed: (where: string, detail: string, remedy?: string) =>
    new TariffError(
      'bucket_failed',
      `${where}: ${detail}`,
      remedy ?? 'Check the bucket URI, the credentials and the network; the current release was not changed.',
    ),

  versionConflict: (version: string, where: string) =>
    new TariffError(
      'version_conflict',
      `${where}: version ${version} is already published with different files`,
      'Build with --previous set to the current release so the version moves on.',
    ),

  releaseNotKept: (version: string, where: string, kept: string[]) =>
    new TariffError(
      'release_not_kept',
      `${where}: version ${version} is not kept in the bucket (kept: ${kept.join(', ') || 'none'})`,
      'Roll back to one of the kept versions.',
    ),

  fetchFailed: (url: string, detail: string) =>
    new TariffError('fetch_failed', `${url}: ${detail}`, 'The last good snapshot of this list stays in use; the next run retries.'),

  noSources: () =>
    new TariffError(
      'no_sources',
      'No source page or URL is configured',
      "Pass --source-page with the authority's price page (or set TARIFF_SOURCE_PAGES, or sourcePages in <data-dir>/config.json), or --source-url for single documents.",
      2,
    ),

  sourcePageUnrecognised: (pages: string[], detail: string) =>
    new TariffError(
      'source_page_unrecognised',
      `${pages.join(', ')}: the page no longer yields the price lists: ${detail}`,
      "The authority's site has changed: check the page in a browser, and the link texts the builder looks for in docs/source-format.md. No release was made.",
    ),

  locked: (path: string) =>
    new TariffError(
      'locked',
      `Another run holds the lock ${path}`,
      'Wait for it to finish; a lock older than the stale timeout is taken over.',
    ),

  invalidEmail: (email: string) =>
    new TariffError('invalid_email', `"${email}" is not an e-mail address`, 'Give the address the account signs in with.', 2),

  accountExists: (email: string) =>
    new TariffError('account_exists', `An account for ${email} already exists`, 'Use `tariff accounts list` to see it.'),

  accountNotFound: (email: string) =>
    new TariffError('account_not_found', `There is no account for ${email}`, 'Create it with `tariff accounts create`.'),

  tooManyKeys: (email: string, max: number) =>
    new TariffError(
      'too_many_keys',
      `${email} already has ${max} active API keys, the most an account may have`,
      'Revoke one first (`tariff keys revoke`), then create the new one.',
    ),

  keyNotFound: (email: string, prefix: string) =>
    new TariffError('key_not_found', `${email} has no active key starting with ${prefix}`, 'See `tariff keys list` for the active keys.'),

  keyPrefixTooShort: (prefix: string, min: number) =>
    new TariffError(
      'key_prefix_too_short',
      `"${prefix}" is too short to name a key: give at least ${min} characters (as \`tariff keys list\` shows them)`,
      'Copy the prefix from `tariff keys list`.',
      2,
    ),

  keyPrefixAmbiguous: (prefix: string) =>
    new TariffError('key_prefix_ambiguous', `More than one active key starts with ${prefix}`, 'Give more characters of the key prefix.'),

  listenFailed: (address: string, detail: string) =>
    new TariffError(
      'listen_failed',
      `Cannot listen on ${address}: ${detail}`,
      'Another process may use that port: stop it, or choose another with --port.',
    ),

  syncWaiting: (until: string, why: string) =>
    new TariffError(
      'sync_waiting',
      `Not calling the service before ${until}: it asked to wait (${why})`,
      'Nothing to do: a later run calls again after that moment. The installed copy is unchanged.',
    ),

  syncRefused: (where: string, status: number, code: string, detail: string) =>
    new TariffError(
      `sync_${code}`,
      `${where}: the service answered ${status} ${code}: ${detail}`,
      code === 'invalid_api_key'
        ? 'Check the key in --key-file or TARIFF_API_KEY (revoked keys and blocked accounts get this answer too).'
        : 'The installed copy is unchanged.',
    ),

  syncFailed: (where: string, detail: string) =>
    new TariffError('sync_failed', `${where}: ${detail}`, 'The installed copy is unchanged; the next run tries again.'),

  syncVerifyFailed: (where: string, detail: string) =>
    new TariffError(
      'sync_verify_failed',
      `${where}: the downloaded file does not verify: ${detail}`,
      'It was not installed: the installed copy is unchanged. The next run downloads it again.',
    ),

  outputFailed: (where: string, detail: string) =>
    new TariffError(
      'output_failed',
      `${where}: cannot write the release: ${detail}`,
      'Check that the output directory is writable and the disk has space.',
    ),
} as const;

export function isTariffError(error: unknown): error is TariffError {
  return error instanceof TariffError;
}
