import { publicDocumentName } from '../source/document-name.ts';
import { assembleDataset, type AssembledDataset } from '../dataset/assemble-dataset.ts';
import type { Dataset, Product } from '../dataset/model.ts';
import { selectTariff, type TariffInForce } from '../dataset/select-tariff.ts';
import { categoryCounts, checkCategoryShrink, checkShrink } from '../release/check-shrink.ts';
import type { Provenance } from '../release/manifest.ts';
import { renderRelease } from '../release/render-release.ts';
import { builderVersion } from '../util/builder-version.ts';
import { sha256Hex } from '../util/digests.ts';
import { parseSource } from '../source/parse-source.ts';
import type { ParsedSource, SourceDocument } from '../source/source-types.ts';
import type { BuildOptions, BuiltRelease } from './built-release.ts';
import { errors, isTariffError } from '../errors.ts';
import { describeBuild } from './describe-build.ts';
import { StepRunner, type Say } from './step-runner.ts';

type Timer = <T>(stage: string, work: () => T | Promise<T>) => Promise<T>;

/** Times stages into `timings` (the operator and the benchmark read them). */
function timerInto(timings: Record<string, number>): Timer {
  return async (stage, work) => {
    const start = performance.now();
    try {
      return await work();
    } finally {
      timings[stage] = (timings[stage] ?? 0) + (performance.now() - start);
    }
  };
}

/** The previous rows, when they belong to the previous manifest (else the release carries no changes). */
const usablePrevious = (options: BuildOptions): Dataset | null =>
  options.previous && options.previousDataset?.version === options.previous.version ? options.previousDataset : null;

/** A notice that states no date takes the one its page (or the command line) gives; the PDF's own date wins. */
function datedByPage(doc: SourceDocument, parsed: ParsedSource): ParsedSource {
  const { noticeDate } = doc;
  if (!noticeDate) return parsed;
  return { ...parsed, notices: parsed.notices.map((notice) => ({ ...notice, effectiveFrom: notice.effectiveFrom ?? noticeDate })) };
}

async function parseDocuments(documents: SourceDocument[], time: Timer, say: Say): Promise<ParsedSource> {
  const each = await time('parse', () =>
    Promise.all(documents.map(async (doc) => datedByPage(doc, doc.parsed ?? (await parseSource(doc.bytes, doc.name))))),
  );
  const parsed = {
    lists: each.flatMap((p) => p.lists),
    notices: each.flatMap((p) => p.notices),
    setAside: each.flatMap((p) => p.setAside),
  };
  say(`${documents.length} document(s): ${parsed.lists.length} list(s), ${parsed.notices.length} notice(s)`);
  for (const doc of parsed.setAside) say(`set aside ${doc.source}: ${doc.detail}`);
  return parsed;
}

/** The release may not drop more products than the guard allows, in total or in one category. */
function checkAgainstPrevious(products: Product[], options: BuildOptions, previousDataset: Dataset | null, say: Say): void {
  const { previous, maxShrinkPercent, allowShrink } = options;
  const guard = { maxPercent: maxShrinkPercent, allowed: allowShrink };
  try {
    checkShrink(previous?.counts.products ?? null, products.length, guard);
    checkCategoryShrink(previousDataset ? categoryCounts(previousDataset.products) : null, categoryCounts(products), guard);
  } catch (error) {
    // A drop that the lists which failed in this run explain is theirs: allowing it would publish a tariff without them.
    const failed = options.failedDocuments ?? [];
    if (failed.length > 0 && isTariffError(error, 'shrink_refused')) throw errors.shrinkFromFailedLists(error.message, failed);
    throw error;
  }
  say(
    previous
      ? `${products.length} products against ${previous.counts.products} in ${previous.version}: within the ${maxShrinkPercent} % a release may drop${allowShrink ? ' (or allowed)' : ''}`
      : `${products.length} products: nothing to compare with`,
  );
}

interface Computed {
  parsed: ParsedSource;
  tariff: TariffInForce;
  assembled: AssembledDataset;
}

async function renderBuilt(options: BuildOptions, computed: Computed, previousDataset: Dataset | null, time: Timer) {
  const { parsed, tariff, assembled } = computed;
  const rendered = await renderRelease({
    content: assembled.content,
    baseUrl: options.baseUrl,
    previous: options.previous,
    previousDataset,
    takenVersions: options.takenVersions,
    now: options.now,
    scratchDir: options.scratchDir,
    time,
    provenance: provenanceOf(options),
    version: options.version,
  });
  return {
    ...rendered,
    skippedBarcodes: assembled.skippedBarcodes,
    pending: tariff.pending,
    notices: tariff.notices,
    duplicates: tariff.duplicates,
    setAside: parsed.setAside,
  };
}

/** What the release is built from, as its manifest names it: each document by address and SHA-256, the day, the builder. */
function provenanceOf(options: BuildOptions): Provenance {
  return {
    builder: `tariff ${builderVersion()}`,
    date: options.date,
    documents: options.sources.map((doc) => ({
      url: publicDocumentName(doc.name),
      sha256: doc.digest?.sha256 ?? sha256Hex(doc.bytes),
      size: doc.digest?.size ?? doc.bytes.length,
      pageDate: doc.noticeDate ?? null,
    })),
  };
}

/**
 * Computes a release from the sources in steps (parse, select the tariff in force, add barcodes,
 * check against the previous release, render the three formats and the manifest), each reported
 * by `runner`. Writes nothing outside `scratchDir`; putting the release in place is the write
 * step's job (`writeReleaseDir`).
 */
export async function buildRelease(options: BuildOptions, runner = new StepRunner()): Promise<BuiltRelease> {
  const timings: Record<string, number> = {};
  const time = timerInto(timings);
  const previousDataset = usablePrevious(options);
  const parsed = await runner.compute('parse', (say) => parseDocuments(options.sources, time, say));
  const tariff = await runner.compute('select', async (say) => {
    const inForce = await time('normalise', () => selectTariff(parsed, options.date, previousDataset?.products));
    say(`the tariff in force on ${options.date} dates from ${inForce.tariffDate}: ${inForce.products.length} products`);
    return inForce;
  });
  const assembled = await runner.compute('assemble', async (say) => {
    const dataset = await time('normalise', () => assembleDataset(tariff, options.barcodes));
    const skipped = dataset.skippedBarcodes.length;
    say(`${dataset.content.barcodes.length} approved barcode(s) added${skipped > 0 ? `, ${skipped} left out` : ''}`);
    return dataset;
  });
  await runner.compute('check', (say) => checkAgainstPrevious(assembled.content.products, options, previousDataset, say));
  return runner.compute('build', async (say) => {
    const built: BuiltRelease = { ...(await renderBuilt(options, { parsed, tariff, assembled }, previousDataset, time)), timings };
    for (const line of describeBuild(built, options.destination ?? 'memory')) say(line);
    return built;
  });
}
