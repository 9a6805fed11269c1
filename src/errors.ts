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
  readonly code: TariffErrorCode;
  readonly hint: string | undefined;
  /** 1 failure, 2 usage, 3 published but a step after the switch failed. */
  readonly exitCode: 1 | 2 | 3;
  /** The values the message names (an address, a code), for surfaces that say it in another language. */
  readonly params: Readonly<Record<string, string | number>>;

  constructor(
    code: TariffErrorCode,
    message: string,
    hint?: string,
    exitCode: 1 | 2 | 3 = 1,
    params: Readonly<Record<string, string | number>> = {},
  ) {
    super(message);
    this.code = code;
    this.hint = hint;
    this.exitCode = exitCode;
    this.params = params;
  }
}

/** The stable codes, each with what an operator should do about it. */
const HINTS = {
  usage: 'Run `tariff --help` for the list of commands and options.',
  source_unreadable: 'Check the path or URL given to --source.',
  source_too_large: 'A tariff list is a few megabytes; check the source.',
  source_malformed: 'The download may be truncated or not a tariff list; fetch it again.',
  source_invalid: 'See docs/source-format.md for the expected elements and values.',
  source_pdf_unreadable: 'Download the document again from the authority; an encrypted or damaged file cannot be read.',
  source_pdf_damaged:
    'The file is not as it was written (a download cut or changed on its way, a damaged disk): download it again from the authority. A list refused so keeps its last good snapshot; a damaged copy is never read as whole.',
  source_not_price_list: 'See docs/source-format.md for the documents the builder reads.',
  tariff_conflict: 'The same tariff code appears twice with different data; the sources disagree.',
  tariff_empty: 'A release needs at least one product; check the sources.',
  no_tariff_in_force: 'Pass --date on or after that day, or add the tariff in force.',
  barcodes_invalid: 'See docs/dataset.md, section "Barcode list for --barcodes".',
  shrink_refused: 'A truncated download must not become a release. If the drop is real, run again with --allow-shrink.',
  release_unreadable: 'Give a release directory (with manifest.json) or a manifest.json file.',
  verify_failed: 'Rebuild the release; do not publish it.',
  bucket_failed: 'Check the bucket URI, the credentials and the network; the current release was not changed.',
  version_conflict: 'Build with --previous set to the current release so the version moves on.',
  version_behind:
    'The current version only moves forward; `tariff rollback <version>` makes a kept older release current. A scheduled run publishes again once the tariff in force is newer than the current release.',
  date_not_today:
    "Without --date a run builds today's tariff. To publish another day's tariff to the live bucket, add --allow-other-date (see docs/operations.md); --dry-run shows it without publishing.",
  bucket_damaged:
    'Publish the release again from a copy of its folder (tariff publish <folder>), or roll back to a kept version (tariff rollback <version>).',
  release_not_kept: 'Roll back to one of the kept versions.',
  published_incomplete:
    'The publication itself succeeded and needs no undoing: the next `tariff release` or `tariff publish` finishes what was left (the price history catches up to the current release, old versions are pruned).',
  fetch_failed: 'The last good snapshot of this list stays in use; the next run retries.',
  no_sources:
    "Pass --source-page with the authority's price page (or set TARIFF_SOURCE_PAGES, or sourcePages in <data-dir>/config.json), or --source-url for single documents.",
  source_page_unrecognised:
    "The authority's site has changed: check the page in a browser, and the link texts the builder looks for in docs/source-format.md. No release was made.",
  locked:
    'Wait for it to finish. A lock whose holder provably no longer runs on this machine is taken over at once; one whose holder cannot be checked, once it is older than the stale timeout (TARIFF_LOCK_STALE_SECONDS).',
  bucket_busy:
    'Another writer holds the bucket (its lock names the command and the machine). Run again once it is done. A lock left by a writer of this machine that died is taken over at once; one of another machine once this machine has seen it unrenewed for its whole life (TARIFF_LOCK_STALE_SECONDS), counted across runs. Nothing was changed.',
  bucket_lease_lost:
    'Another writer took the bucket over while this run held it (this run was paused or cut off from the bucket longer than the lease lives), so this run stopped before its next write. Check with `tariff verify --bucket`, then run again.',
  bucket_unsupported:
    'Use a store that honours both conditions of a write, If-None-Match: * and If-Match: AWS S3, MinIO, Cloudflare R2 or Ceph RGW 16 and later (docs/operations.md, "Stores"). Nothing but the writer lease was written, and the lease was let go.',
  bucket_format_newer:
    'A newer tariff wrote this bucket in a layout this version does not know: upgrade this tariff to that version or newer (docs/operations.md, "Upgrading"). Nothing was read or written.',
  bucket_format_unreadable:
    'The bucket\'s format object is damaged: nothing can tell which layout the bucket holds. Restore tariff-bucket.json from a copy of the bucket (docs/operations.md, "Upgrading"); nothing was read or written.',
  data_dir_newer:
    'A newer tariff wrote this data dir in a layout this version does not know: run that version or newer with it (docs/operations.md, "Upgrading"). Nothing in it was read or written.',
  data_dir_unreadable:
    'The data dir\'s format file is damaged: restore it from a backup, or write it as docs/operations.md, "Upgrading", shows.',
  bucket_changed:
    'Another writer changed it while this run held the writer lock (a writer that takes no lock, or a lock that expired): nothing was overwritten. Run again; see docs/operations.md, "One writer at a time".',
  invalid_email: 'Give the address the account signs in with.',
  no_current_release:
    'Publish a release to this bucket first (tariff release), or name the bucket the service serves (--bucket, TARIFF_BUCKET).',
  unknown_adm_code: 'Approve a code of the tariff currently published (tariff diff and the dataset list them).',
  not_integration: 'Points of sale (contributorRef) belong to Integration accounts; block the account itself instead.',
  account_exists: 'Use `tariff accounts list` to see it.',
  account_not_found: 'Create it with `tariff accounts create`.',
  too_many_keys: 'Revoke one first (`tariff keys revoke`), then create the new one.',
  key_not_found: 'See `tariff keys list` for the active keys.',
  key_prefix_too_short: 'Copy the prefix from `tariff keys list`.',
  key_prefix_ambiguous: 'Give more characters of the key prefix.',
  listen_failed: 'Another process may use that port: stop it, or choose another with --port.',
  sync_waiting: 'Nothing to do: a later run calls again after that moment. The installed copy is unchanged.',
  sync_failed: 'The installed copy is unchanged; the next run tries again.',
  sync_verify_failed: 'It was not installed: the installed copy is unchanged. The next run downloads it again.',
  output_failed: 'Check that the output directory is writable and the disk has space.',
  output_not_release: 'Give --out a new or empty folder, or a release folder to replace; nothing was deleted.',
  signing_key_required:
    'Set TARIFF_SIGNING_KEY to the private key file `tariff signing-key create` wrote (docs/operations.md, "Signing releases"); nothing was published unsigned.',
  signing_key_unknown:
    'Point TARIFF_SIGNING_KEY at a key in use (`tariff signing-key list`), or create one (`tariff signing-key create`); nothing was published.',
  signing_key_unreadable: 'TARIFF_SIGNING_KEY names the private key file `tariff signing-key create` wrote (mode 0600).',
  manifest_untrusted:
    'Nothing was installed and no further read was spent; the installed copy is unchanged. See docs/sync.md, "Signed manifests".',
  rebuild_differs:
    'The published release is not what its documents give: see which file differs, and check the snapshots in <data-dir>/snapshots against the provenance.',
  healthcheck_failed: 'The service is not running there, not ready, or stale (/healthz says why): see its log.',
  registry_missing: 'Check --data-dir and TARIFF_REGISTRY: they name the registry the service uses.',
  pg_tool_missing:
    "Install PostgreSQL's client tools (Debian: postgresql-client) of the server's version or newer, or run the command the message prints.",
  pg_tool_failed: "Check that TARIFF_REGISTRY names the database, and that the client tools' version is the server's or newer.",
  backup_not_found: 'List the backups in the destination (backups/registry/), or take one: tariff registry backup.',
  backup_damaged: 'Use another backup (the one before it), and take a new one now: tariff registry backup.',
  registry_changed:
    'The registry holds work done since that backup, which a restore would lose. Restore a newer backup, or run again with --force (the registry replaced is kept beside it).',
  sources_missing:
    'Give the folder that holds them (publish --sources <dir>; a folder tariff build wrote carries them in sources/), or publish with --without-sources: the bucket then cannot rebuild the release.',
  backup_identity:
    'Give the file of the identity that opens the backups with --identity <file> or TARIFF_BACKUP_IDENTITY (tariff registry backup-key create made it; keep it off the machine that takes backups).',
  backup_unencrypted:
    'Give the public recipient of the backups with --recipient age1… or TARIFF_BACKUP_RECIPIENTS (tariff registry backup-key create prints one), or say --plaintext to store it unencrypted.',
  backup_newer_schema: 'It was written by a newer tariff: restore it with that version (or newer), never with this one.',
  registry_newer_schema: 'A newer tariff migrated this registry: run that version (or newer); this one would not know its tables.',
  backup_beside_registry:
    "A backup kept on the disk it protects is lost with it: back up to another machine's storage (TARIFF_BUCKET, or --to s3://… or a folder elsewhere).",
  registry_in_use:
    'Stop the service (and every other process using the registry) first, then restore; on PostgreSQL, --force ends the other sessions.',
  history_unreadable:
    'The releases are unaffected. Restore history/ from a backup of the bucket, or delete history/manifest.json (the files it names are then removed as unnamed): the next `tariff release` rebuilds the history from the kept releases (then `tariff history import` the archived lists again).',
  product_not_in_history: 'Give a tariff code of the published tariff, or of a list read with `tariff history import`.',
  history_ahead:
    'A list that takes effect later is announced prices, not history: the release of that day records it. To import it on purpose, name that day with --date. The history was not changed.',
  import_not_found: 'Give the file name as `tariff history <code>` shows it in its steps, or the SHA-256 of the document.',
  required_list_unreadable:
    'A required category (TARIFF_CATEGORIES) is never left out of a release. Check the document (`tariff inspect <file>`, or download it again); the next run reads it again. To publish without that category, leave it out of TARIFF_CATEGORIES.',
  machine_busy:
    'The document is not known to be damaged: the machine did not give its reader the time to finish. Run again (when the machine is less busy); a list that failed so keeps its last good snapshot.',
  machine_fault:
    'A fault of the machine or of a service, not of the product: fix what the message names, then run again. Nothing was left half-written.',
  internal_error: 'This is a bug: please report it with the command you ran (TARIFF_DEBUG=1 prints where it happened).',
} as const;

/**
 * Every code a TariffError can carry: the catalogue's, and `sync_<code>` for an error code the
 * service answered `tariff sync` with (scripts see what the service said).
 */
export type TariffErrorCode = keyof typeof HINTS | `sync_${string}`;

/** Hints for a code whose remedy differs by where it happened (the code stays the one scripts match on). */
const VARIANT_HINTS = {
  shrinkFromFailedLists:
    'Do not allow this drop: it comes from the lists that failed in this run, and allowing it would publish a tariff without them. The next run reads them again; see why each failed above.',
  categoryShrinkRefused:
    "A missing or truncated category list must not empty a category. Check that category's source; if the drop is real, run again with --allow-shrink.",
  bucketVerifyFailed:
    "The bucket's copy is damaged: publish the release again from its local copy (tariff publish <data-dir>/releases/<version>) or roll back to a kept version.",
  bucketSignatureFailed:
    'Sign the current manifest again with a key in use: `tariff release` does when TARIFF_SIGNING_KEY is set (docs/operations.md, "Signing releases").',
  settingInvalid: 'docs/operations.md lists every setting, its environment variable and its key in <data-dir>/config.json.',
  syncInvalidApiKey: 'Check the key in --key-file or TARIFF_API_KEY (revoked keys and blocked accounts get this answer too).',
  syncRefused: 'The installed copy is unchanged.',
  bucketLeaseOutlived:
    "This run was paused, or too slow, or cut off from the bucket for longer than its lease lives; no other writer needs to exist for that. A write this late could undo a later writer's, so it stopped before its next write. Check with `tariff verify --bucket`, then run again.",
} as const;

type Code = keyof typeof HINTS;

/** Usage mistakes exit 2 so scripts can tell "called wrongly" from "ran and failed". */
const fail = (code: Code, message: string, exitCode: 1 | 2 | 3 = 1, params: Record<string, string | number> = {}) =>
  new TariffError(code, message, HINTS[code], exitCode, params);

/** Problems one to a line, under the message that counts them. */
const listed = (problems: string[]) => problems.map((problem) => `\n  - ${problem}`).join('');

/** `products` is "products" for the whole tariff, "<category> products" for one category. */
const shrinkMessage = (products: string, dropped: number, previous: number, maxPercent: number) =>
  `The new tariff drops ${dropped} of the ${previous} ${products} of the previous release ` +
  `(${((dropped / previous) * 100).toFixed(1)} %, more than ${maxPercent.toFixed(0)} %)`;

export const errors = {
  usage: (message: string) => fail('usage', message, 2),
  // Commander's own parse errors: the hint names the help of the command that was given.
  commandUsage: (message: string, command: string) =>
    new TariffError('usage', message, command ? `Run \`tariff ${command} --help\` for its arguments and options.` : HINTS.usage, 2),
  /** A usage mistake in one value of a decision (the barcode, the tariff code, the match), named for the desk. */
  invalidValue: (field: 'barcode' | 'admCode' | 'match', value: string, message: string) => fail('usage', message, 2, { field, value }),
  sourceUnreadable: (where: string, detail: string) => fail('source_unreadable', `${where}: cannot read the tariff source: ${detail}`),
  sourceTooLarge: (where: string, max: number) => fail('source_too_large', `${where}: the tariff source is larger than ${max} bytes`),
  sourceMalformed: (where: string, detail: string) => fail('source_malformed', `${where}: the XML is malformed: ${detail}`),
  sourceInvalid: (where: string, detail: string) => fail('source_invalid', `${where}: ${detail}`),
  pdfUnreadable: (where: string, detail: string) => fail('source_pdf_unreadable', `${where}: cannot read the PDF: ${detail}`),
  /** The structure check found the file changed since it was written: never read as whole. */
  pdfDamaged: (where: string, detail: string) => fail('source_pdf_damaged', `${where}: the PDF is damaged: ${detail}`),
  /** The clock's backstop passed: the machine, not the document, is the reason (limits of work refuse documents). */
  readerStarved: (where: string, step: string, seconds: number) =>
    fail(
      'machine_busy',
      `${where}: the machine did not give the PDF reader time to finish (${step} was still under way after ${seconds} s, far longer than any price list needs on a machine with time to give)`,
    ),
  notPriceList: (where: string, detail: string) =>
    fail('source_not_price_list', `${where}: not a price list or price-change notice of the authority: ${detail}`),
  tariffConflict: (where: string, detail: string) => fail('tariff_conflict', `${where}: ${detail}`),
  tariffEmpty: (detail: string) => fail('tariff_empty', `The tariff is empty: ${detail}`),
  noTariffInForce: (date: string, earliest: string) =>
    fail('no_tariff_in_force', `No tariff is in force on ${date}: the earliest source takes effect on ${earliest}`),
  barcodesInvalid: (where: string, detail: string) => fail('barcodes_invalid', `${where}: ${detail}`),
  shrinkRefused: (dropped: number, previous: number, maxPercent: number) =>
    fail('shrink_refused', shrinkMessage('products', dropped, previous, maxPercent)),
  // Same stable code as a whole-tariff shrink (scripts match on it); the hint points at the category's source.
  categoryShrinkRefused: (category: string, dropped: number, previous: number, maxPercent: number) =>
    new TariffError(
      'shrink_refused',
      shrinkMessage(`${category} products`, dropped, previous, maxPercent),
      VARIANT_HINTS.categoryShrinkRefused,
    ),
  // Same stable code; the hint names the failed lists instead of suggesting --allow-shrink.
  shrinkFromFailedLists: (message: string, failed: string[]) =>
    new TariffError(
      'shrink_refused',
      `${message}, and ${failed.length === 1 ? 'a document' : `${failed.length} documents`} of the authority could not be read in this run:${listed(failed)}`,
      VARIANT_HINTS.shrinkFromFailedLists,
    ),
  requiredListUnreadable: (lists: { category: string; failures: string[] }[]) =>
    fail(
      'required_list_unreadable',
      `Nothing was published: ${lists
        .map(({ category }) => `the ${category} list`)
        .join(
          ', ',
        )} could not be read and no earlier one is kept, so a release would leave ${lists.length === 1 ? 'it' : 'them'} out:${listed(
        lists.flatMap(({ failures }) => failures),
      )}`,
    ),
  releaseUnreadable: (where: string, detail: string) => fail('release_unreadable', `${where}: not a readable release: ${detail}`),
  verifyFailed: (where: string, problems: string[]) => fail('verify_failed', `${where}: the release does not verify:${listed(problems)}`),
  // Same stable code; what to do differs for a bucket's copy, which is repaired, not rebuilt.
  bucketVerifyFailed: (where: string, problems: string[]) =>
    new TariffError('verify_failed', `${where}: the release does not verify:${listed(problems)}`, VARIANT_HINTS.bucketVerifyFailed),
  // Same stable code; the files are whole, the current manifest's signature is what fails.
  bucketSignatureFailed: (where: string, problems: string[]) =>
    new TariffError(
      'verify_failed',
      `${where}: the current manifest's signature does not verify:${listed(problems)}`,
      VARIANT_HINTS.bucketSignatureFailed,
    ),
  // A usage mistake (exit 2) whose remedy is in the settings' documentation, not in --help.
  settingInvalid: (message: string) => new TariffError('usage', message, VARIANT_HINTS.settingInvalid, 2),
  // The S3 adapter knows better than the catalogue which of credentials, bucket or network to check.
  bucketFailed: (where: string, detail: string, remedy?: string) =>
    new TariffError('bucket_failed', `${where}: ${detail}`, remedy ?? HINTS.bucket_failed),
  versionConflict: (version: string, where: string, detail = 'is already published with different files') =>
    fail('version_conflict', `${where}: version ${version} ${detail}`),
  dateNotToday: (date: string, today: string) =>
    fail('date_not_today', `--date ${date} is not today (${today}): the release would publish that day's tariff to the live bucket`, 2),
  versionBehind: (version: string, current: string, where: string) =>
    fail('version_behind', `${where}: ${version} is older than the current release ${current}; nothing was published`),
  bucketDamaged: (version: string, where: string, problems: string[]) =>
    fail('bucket_damaged', `${where}: the current release ${version} is damaged and cannot be repaired:${listed(problems)}`),
  // Exit 3: a script tells "published, something after failed" from "nothing changed".
  publishedIncomplete: (version: string, where: string, step: string, detail: string, remedy?: string) =>
    new TariffError(
      'published_incomplete',
      `${version} is now the current release in ${where}, but ${step} failed: ${detail}`,
      remedy ? `${remedy} ${HINTS.published_incomplete}` : HINTS.published_incomplete,
      3,
      { version, step },
    ),
  releaseNotKept: (version: string, where: string, kept: string[], why = 'is not kept in the bucket') =>
    fail('release_not_kept', `${where}: version ${version} ${why} (kept: ${kept.join(', ') || 'none'})`),
  fetchFailed: (url: string, detail: string, attempts = 1) => fail('fetch_failed', `${url}: ${detail}`, 1, { attempts }),
  /** No list fetched, and none ever was here: there is no last good snapshot to keep in use. */
  nothingFetched: (urls: string) =>
    new TariffError(
      'fetch_failed',
      `${urls}: no list has ever been fetched successfully here`,
      'There is no snapshot to fall back on yet: check the addresses (TARIFF_SOURCE_URLS, TARIFF_SOURCE_PAGES) and that the authority answers them; the next run retries.',
      1,
    ),
  noSources: () => fail('no_sources', 'No source page or URL is configured', 2),
  sourcePageUnrecognised: (pages: string[], detail: string) =>
    fail('source_page_unrecognised', `${pages.join(', ')}: the page no longer yields the price lists: ${detail}`),
  healthcheckFailed: (url: string, detail: string) => fail('healthcheck_failed', `${url}: ${detail}`),
  registryMissing: (path: string) => fail('registry_missing', `${path}: no registry there to back up`),
  pgToolMissing: (tool: string, byHand: string) => fail('pg_tool_missing', `${tool} is not on PATH: run it by hand: ${byHand}`),
  pgToolFailed: (tool: string, detail: string) => fail('pg_tool_failed', `${tool} failed: ${detail}`),
  backupNotFound: (where: string) => fail('backup_not_found', `${where}: no such backup`),
  backupDamaged: (where: string, detail: string) => fail('backup_damaged', `${where}: ${detail}`),
  sourcesMissing: (version: string, missing: string[]) =>
    fail('sources_missing', `${version} was built from ${missing.join(', ')}, not at hand here: the bucket alone could not rebuild it`),
  backupIdentity: (where: string, detail: string) => fail('backup_identity', `${where}: ${detail}`),
  backupUnencrypted: () => fail('backup_unencrypted', 'No recipient to encrypt the backup for: a backup holds every account', 2),
  backupNewerSchema: (where: string, version: number, known: number) =>
    fail('backup_newer_schema', `${where}: its registry schema is version ${version}; this tariff knows up to ${known}`, 1, { version }),
  backupBesideRegistry: (destination: string, dataDir: string) =>
    fail('backup_beside_registry', `${destination} is inside the data dir ${dataDir}, whose loss a backup is for`, 2),
  registryNewerSchema: (version: number, known: number) =>
    fail('registry_newer_schema', `The registry's schema is version ${version}; this tariff knows up to ${known}`, 1, { version }),
  registryInUse: (where: string, detail: string) => fail('registry_in_use', `${where} is in use (${detail}): nothing was restored`),
  registryChanged: (path: string, detail: string) =>
    fail('registry_changed', `${path} changed since the backup (${detail}): nothing was restored`),
  historyUnreadable: (where: string, detail: string) => fail('history_unreadable', `${where}: not a readable price history: ${detail}`),
  historyAhead: (where: string, date: string, latest: string) =>
    fail('history_ahead', `${where}: its list takes effect on ${date}, after ${latest}: its prices have not happened yet`, 1, { date }),
  importNotFound: (name: string, known: string[]) =>
    fail('import_not_found', `No imported document is named ${name} (imported: ${known.join(', ') || 'none'})`),
  importAmbiguous: (name: string, digests: string[]) =>
    new TariffError('import_not_found', `${name} names ${digests.length} imported documents`, `Give one's SHA-256: ${digests.join(', ')}.`),
  productNotInHistory: (admCode: number, where: string) =>
    fail('product_not_in_history', `Tariff code ${admCode} is in no release or list recorded in ${where}`, 1, { admCode }),
  locked: (path: string) => fail('locked', `Another run holds the lock ${path}`),
  bucketBusy: (where: string, holder: string) => fail('bucket_busy', `${where}: another writer holds the bucket: ${holder}`),
  /**
   * `taken`: another writer's lease is in the bucket now; `outlived`: the run itself was too late
   * (paused, too slow, its renewals not landing), which says nothing of another writer.
   */
  bucketLeaseLost: (where: string, detail: string, why: 'taken' | 'outlived' = 'taken') =>
    new TariffError(
      'bucket_lease_lost',
      `${where}: this run no longer holds the bucket's writer lease (${detail}); it stopped before its next write`,
      why === 'taken' ? HINTS.bucket_lease_lost : VARIANT_HINTS.bucketLeaseOutlived,
    ),
  bucketUnsupported: (where: string, lacks: string) =>
    fail('bucket_unsupported', `${where}: the store ${lacks}: compare-and-swap cannot work on it, so nothing was written`),
  bucketFormatNewer: (where: string, version: number, use: 'read' | 'write', needs: number, knows: number, createdBy: string) =>
    fail(
      'bucket_format_newer',
      `${where}: the bucket is of format ${version} (written by ${createdBy}), which needs a ${use === 'read' ? 'reader' : 'writer'} of format ${needs}; this tariff ${use === 'read' ? 'reads' : 'writes'} format ${knows} at most`,
      1,
      { version, needs },
    ),
  bucketFormatUnreadable: (where: string, detail: string) =>
    fail('bucket_format_unreadable', `${where}: not a bucket format object: ${detail}`),
  dataDirNewer: (path: string, version: number, knows: number, createdBy: string) =>
    fail(
      'data_dir_newer',
      `${path}: the data dir is of format ${version} (written by ${createdBy}); this tariff knows format ${knows} at most`,
      1,
      {
        version,
      },
    ),
  dataDirUnreadable: (path: string, detail: string) => fail('data_dir_unreadable', `${path}: not a data dir format file: ${detail}`),
  bucketChanged: (where: string, detail: string) => fail('bucket_changed', `${where} changed since this run read it: ${detail}`),
  noCurrentRelease: (where: string) =>
    fail('no_current_release', `${where} holds no current release (no current.json): there is no published tariff to match a code against`),
  unknownAdmCode: (admCode: number) =>
    fail('unknown_adm_code', `Tariff code ${admCode} is not in the tariff currently published`, 2, { admCode }),
  notIntegration: (email: string, type: string) =>
    fail('not_integration', `${email} is a ${type} account, not an Integration: it has no points of sale`, 2, { email, type }),
  invalidEmail: (email: string) => fail('invalid_email', `"${email}" is not an e-mail address`, 2, { email }),
  accountExists: (email: string) => fail('account_exists', `An account for ${email} already exists`, 1, { email }),
  accountNotFound: (email: string) => fail('account_not_found', `There is no account for ${email}`, 1, { email }),
  tooManyKeys: (email: string, max: number) =>
    fail('too_many_keys', `${email} already has ${max} active API keys, the most an account may have`),
  keyNotFound: (email: string, prefix: string) => fail('key_not_found', `${email} has no active key starting with ${prefix}`),
  keyPrefixTooShort: (prefix: string, min: number) =>
    fail(
      'key_prefix_too_short',
      `"${prefix}" is too short to name a key: give at least ${min} characters (as \`tariff keys list\` shows them)`,
      2,
    ),
  keyPrefixAmbiguous: (prefix: string) => fail('key_prefix_ambiguous', `More than one active key starts with ${prefix}`),
  listenFailed: (address: string, detail: string) => fail('listen_failed', `cannot listen on ${address}: ${detail}`),
  syncWaiting: (until: string, why: string) => fail('sync_waiting', `Not calling the service before ${until}: it asked to wait (${why})`),
  // The service's own error code becomes part of ours (sync_<code>), so scripts see what the service said.
  syncRefused: (where: string, status: number, code: string, detail: string) =>
    new TariffError(
      `sync_${code}`,
      `${where}: the service answered ${status} ${code}: ${detail}`,
      code === 'invalid_api_key' ? VARIANT_HINTS.syncInvalidApiKey : VARIANT_HINTS.syncRefused,
    ),
  syncFailed: (where: string, detail: string, remedy?: string) =>
    new TariffError('sync_failed', `${where}: ${detail}`, remedy ? `${remedy} ${HINTS.sync_failed}` : HINTS.sync_failed),
  syncVerifyFailed: (where: string, detail: string) =>
    fail('sync_verify_failed', `${where}: the downloaded file does not verify: ${detail}`),
  signingKeyRequired: (where: string, keyIds: string[]) =>
    fail('signing_key_required', `${where}keys.json lists signing key(s) ${keyIds.join(', ')} in use, and no signing key is configured`),
  signingKeyUnknown: (keyId: string, where: string, why: string) =>
    fail('signing_key_unknown', `The signing key ${keyId} ${why} in ${where}keys.json: clients could not check its signatures`),
  signingKeyUnreadable: (path: string, detail: string) => fail('signing_key_unreadable', `${path}: cannot read the signing key: ${detail}`),
  manifestUntrusted: (where: string, refusal: string, detail: string) =>
    fail('manifest_untrusted', `${where}: the manifest is not trusted (${refusal}): ${detail}`, 1, { refusal }),
  rebuildDiffers: (version: string, problems: string[]) =>
    fail('rebuild_differs', `${version} does not match its rebuild:${listed(problems)}`),
  outputFailed: (where: string, detail: string) => fail('output_failed', `${where}: cannot write the release: ${detail}`),
  outputNotRelease: (where: string, foreign: string[]) =>
    fail(
      'output_not_release',
      `${where} is not a release folder (it holds ${foreign.slice(0, 5).join(', ')}${foreign.length > 5 ? ', …' : ''}): replacing it would delete them`,
      2,
    ),
} as const;

/** Whether `error` is one of the catalogue's, and, given a code, that one: `isTariffError(e, 'fetch_failed')`. */
export function isTariffError<C extends TariffErrorCode>(error: unknown, code?: C): error is TariffError & { code: C } {
  return error instanceof TariffError && (code === undefined || error.code === code);
}

/**
 * An unexpected failure, as the catalogue reports it: a bug. Never its stack: that goes to the
 * debug log (TARIFF_DEBUG=1), not into messages or --json.
 */
export const internalError = (error: unknown): TariffError =>
  fail('internal_error', `internal error: ${(error as Error)?.message ?? String(error)}`);
