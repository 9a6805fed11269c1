import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { parseBarcodeList } from '../../dataset/parse-barcode-list.ts';
import type { Barcode, Dataset } from '../../dataset/model.ts';
import { describeChangeSummary, summariseChanges } from '../../dataset/summarise-changes.ts';
import { errors } from '../../errors.ts';
import { buildRelease, type BuiltRelease, type SourceDocument } from '../../release/build-release.ts';
import { DEFAULT_MAX_SHRINK } from '../../release/check-shrink.ts';
import type { Manifest } from '../../release/manifest.ts';
import { readManifest, readReleaseDataset } from '../../release/read-release.ts';
import { writeReleaseDir } from '../../release/write-release-dir.ts';
import { readSources } from '../../source/read-sources.ts';
import { unreadablePrevious } from '../../publish/read-published-rows.ts';
import { sourceFormat } from '../../source/parse-source.ts';
import { prewarmPdfReader } from '../../source/pdf/read-pdf-runs.ts';
import { openRegistry } from '../../registry/open-registry.ts';
import { dateInRome } from '../../util/dates.ts';
import { recoverReleaseDir } from '../../util/leftovers.ts';
import { buildDate, DEFAULT_BASE_URL, parsePercent, type CommandContext, type Runner } from '../context.ts';

export interface BuildCommandOptions {
  source: string[];
  /** Feed documents already in memory (tariff release passes its snapshots). */
  documents?: SourceDocument[];
  out: string;
  date?: string;
  baseUrl?: string;
  previous?: string;
  allowShrink?: boolean;
  maxShrink?: string;
  barcodes?: string;
}

export function registerBuild(program: Command, run: Runner): void {
  program
    .command('build')
    .description('Build a release (three gzip files and manifest.json) from the authority tariff')
    .requiredOption(
      '--source <file-dir-or-url...>',
      "the authority's PDF price lists and notices, or XML feeds: a file, a directory of them, or an http(s) URL (repeatable)",
    )
    .requiredOption('--out <dir>', 'release directory to write (replaced whole, atomically)')
    .option('--date <YYYY-MM-DD>', 'build the tariff in force on this day (default: today in Europe/Rome)')
    .option('--base-url <url>', `public base URL of the files in the manifest (env TARIFF_BASE_URL, default ${DEFAULT_BASE_URL})`)
    .option('--previous <dir-or-manifest>', 'the previous release: decides the version and guards against shrinking')
    .option('--barcodes <file>', 'approved barcode matches to include (CSV, see docs/dataset.md)')
    .option('--allow-shrink', 'accept a tariff that drops more products than --max-shrink allows')
    .option(
      '--max-shrink <percent>',
      `largest share of the previous products a build may drop (env TARIFF_MAX_SHRINK, default ${DEFAULT_MAX_SHRINK * 100})`,
    )
    .addHelpText('after', '\nExample:\n  tariff build --source feeds/ --previous var/release --out var/release --date 2026-11-15')
    .action(run(buildCommand));
}

async function buildCommand(ctx: CommandContext, options: BuildCommandOptions): Promise<void> {
  // A run killed while replacing --out (or --previous) left the old release aside: put it back first.
  for (const dir of new Set([options.out, ...(options.previous ? [options.previous] : [])])) {
    const restored = await recoverReleaseDir(resolve(dir));
    if (restored) ctx.io.stderr.write(`tariff: recovered ${dir} from ${restored}, left by an interrupted build\n`);
  }
  const built = await runBuild(ctx, options);
  await writeReleaseDir(built, options.out);
  reportBuild(ctx, built, options.out);
}

/** Reads the inputs named by the options and builds the release in memory. */
export async function runBuild(
  ctx: CommandContext,
  options: Omit<BuildCommandOptions, 'out'>,
  known: { previous?: Manifest | null; previousDataset?: Dataset | null; takenVersions?: string[]; extraBarcodes?: Barcode[] } = {},
): Promise<BuiltRelease> {
  const date = buildDate(options.date, ctx.io.now(), dateInRome);
  const maxShrink = parsePercent(options.maxShrink ?? ctx.io.env.TARIFF_MAX_SHRINK ?? String(DEFAULT_MAX_SHRINK * 100), '--max-shrink');
  const baseUrl = options.baseUrl ?? ctx.io.env.TARIFF_BASE_URL ?? DEFAULT_BASE_URL;
  if (!/^https?:\/\/[^/]/.test(baseUrl)) throw errors.usage(`--base-url ${baseUrl} is not an http(s) URL`);

  // The PDF reader's threads load PDFium while this thread reads the other inputs; an XML
  // build starts none (they would take CPU from it). Sources read from disk start them likewise.
  if (options.documents?.some((doc) => !doc.parsed && sourceFormat(doc.bytes) === 'pdf')) prewarmPdfReader();
  const previous: Manifest | null =
    known.previous !== undefined ? known.previous : options.previous ? await readPreviousIfAny(options.previous) : null;
  const previousDataset =
    known.previousDataset !== undefined
      ? known.previousDataset
      : previous && options.previous
        ? await previousRows(options.previous, (line) => ctx.io.stderr.write(`tariff: ${line}\n`))
        : null;
  const sources = [...(options.documents ?? []), ...(await readSources(options.source, ctx.io.env))];
  const fromFile = options.barcodes ? parseBarcodeList(await readBarcodeFile(options.barcodes), options.barcodes) : [];
  // The registry's approved matches win over a list's: they are the moderated truth.
  const merged = new Map<string, Barcode>();
  for (const barcode of [...fromFile, ...(await registryBarcodes(ctx)), ...(known.extraBarcodes ?? [])])
    merged.set(barcode.barcode, barcode);

  const scratchDir = await mkdtemp(join(tmpdir(), 'tariff-build-'));
  try {
    return await buildRelease({
      sources,
      barcodes: [...merged.values()],
      date,
      baseUrl,
      previous,
      previousDataset,
      takenVersions: known.takenVersions,
      allowShrink: options.allowShrink ?? false,
      maxShrink,
      now: ctx.io.now,
      scratchDir,
    });
  } finally {
    await rm(scratchDir, { recursive: true, force: true });
  }
}

/** The approved barcodes of the registry in the data dir (or TARIFF_REGISTRY), when there is one. */
async function registryBarcodes(ctx: CommandContext): Promise<Barcode[]> {
  const path = ctx.io.env.TARIFF_REGISTRY ?? join(ctx.dataDir, 'registry.sqlite');
  if (
    !ctx.io.env.TARIFF_REGISTRY &&
    !(await stat(path).then(
      () => true,
      () => false,
    ))
  )
    return [];
  const registry = await openRegistry({ dataDir: ctx.dataDir, env: ctx.io.env });
  try {
    return await registry.approvedBarcodes();
  } finally {
    await registry.close();
  }
}

/** A --previous that does not exist yet is the first build (cron's first run), not an error. */
async function readPreviousIfAny(path: string): Promise<Manifest | null> {
  try {
    return (await readManifest(path)).manifest;
  } catch (error) {
    if (
      (error as { code?: string }).code === 'release_unreadable' &&
      /no such file or directory|manifest\.json is missing/.test((error as Error).message)
    )
      return null;
    throw error;
  }
}

/** The previous release's rows, or null when its JSON file cannot be read: said, because the new release then carries no changes. */
async function previousRows(path: string, say: (line: string) => void): Promise<Dataset | null> {
  try {
    return (await readReleaseDataset(path)).dataset;
  } catch (error) {
    say(`${unreadablePrevious(path, error)}`);
    return null;
  }
}

async function readBarcodeFile(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    throw errors.barcodesInvalid(path, `cannot read the barcode list: ${(error as Error).message}`);
  }
}

/** What a build has to say besides its version: unchanged content, barcodes left out, lists waiting. */
export function describeBuild(built: BuiltRelease, where: string): string[] {
  const { manifest } = built;
  const lines = [
    built.unchanged
      ? `unchanged: the content equals the previous release ${manifest.version}; ${where} holds it`
      : `built ${manifest.version}: tariff in force from ${manifest.tariffDate}, ${manifest.counts.products} products, ${manifest.counts.barcodes} barcodes in ${where}`,
  ];
  if (!built.unchanged) {
    lines.push(
      built.changesSince
        ? `changes since ${built.changesSince}: ${describeChangeSummary(summariseChanges(built.changes))}`
        : 'no changes recorded: nothing to compare with (a first release, or the previous one could not be read)',
    );
  }
  if (built.skippedBarcodes.length > 0)
    lines.push(`left out ${built.skippedBarcodes.length} barcode(s) whose tariff code is not in the tariff in force`);
  for (const list of built.pending) lines.push(`waiting: ${list.category} list takes effect on ${list.effectiveFrom} (${list.source})`);
  for (const notice of built.notices) {
    if (notice.status === 'pending') lines.push(`waiting: price-change notice takes effect on ${notice.effectiveFrom} (${notice.source})`);
    else if (notice.status === 'superseded')
      lines.push(`notice of ${notice.effectiveFrom} is already part of the list in force (${notice.source})`);
    else lines.push(`applied the notice of ${notice.effectiveFrom} to ${notice.applied} product(s) (${notice.source})`);
    for (const problem of notice.problems.slice(0, 20)) lines.push(`notice: ${problem}`);
    if (notice.problems.length > 20) lines.push(`notice: … and ${notice.problems.length - 20} more`);
  }
  return lines;
}

export function reportBuild(ctx: CommandContext, built: BuiltRelease, where: string): void {
  if (!ctx.json) for (const line of describeBuild(built, where)) ctx.io.stderr.write(`tariff: ${line}\n`);
  ctx.result(
    {
      version: built.manifest.version,
      unchanged: built.unchanged,
      changesSince: built.changesSince,
      changes: summariseChanges(built.changes),
      out: where,
      manifest: built.manifest,
      skippedBarcodes: built.skippedBarcodes.length,
      pending: built.pending,
      notices: built.notices,
    },
    built.manifest.version,
  );
}
