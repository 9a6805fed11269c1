import { assembleDataset, type AssembledDataset } from '../dataset/assemble-dataset.ts';
import type { Barcode, Dataset } from '../dataset/model.ts';
import { selectTariff, type TariffInForce } from '../dataset/select-tariff.ts';
import { describeChangeSummary, summariseChanges } from '../dataset/summarise-changes.ts';
import type { BuiltRelease } from './built-release.ts';
import { categoryCounts, checkCategoryShrink, checkShrink } from '../release/check-shrink.ts';
import type { Manifest } from '../release/manifest.ts';
import { renderRelease } from '../release/render-release.ts';
import { parseSource } from '../source/parse-source.ts';
import type { ParsedSource, SourceDocument } from '../source/source-types.ts';
import type { Step } from './step-runner.ts';

/** What the build steps read and what they leave for the next ones. */
export interface BuildState {
  /** The day whose tariff in force is built (ISO date, Italian calendar). */
  date: string;
  baseUrl: string;
  allowShrink: boolean;
  /** The largest percentage of the previous products a release may drop (TARIFF_MAX_SHRINK). */
  maxShrinkPercent: number;
  now: () => Date;
  /** A private scratch directory: the SQLite and NeDB engines write real files. */
  scratchDir: string;
  documents: SourceDocument[];
  barcodes: Barcode[];
  previous: Manifest | null;
  /** The previous release's rows: the changes are computed against them, and the per-category guard counts them. */
  previousDataset: Dataset | null;
  /** Versions already published (kept in the bucket): a new version number goes past them. */
  takenVersions?: string[];
  /** Where the release goes, for the build's lines ("var/release", "the bucket …"). */
  destination?: string;
  timings: Record<string, number>;
  parsed?: ParsedSource;
  tariff?: TariffInForce;
  assembled?: AssembledDataset;
  built?: BuiltRelease;
}

/** Times a stage into the state's timings (the benchmark prints them). */
export function timer(state: BuildState) {
  return async <T>(stage: string, work: () => T | Promise<T>): Promise<T> => {
    const start = performance.now();
    try {
      return await work();
    } finally {
      state.timings[stage] = (state.timings[stage] ?? 0) + (performance.now() - start);
    }
  };
}

/** The previous rows, when they belong to the previous manifest (else the release carries no changes). */
const usablePrevious = (state: BuildState) =>
  state.previous && state.previousDataset?.version === state.previous.version ? state.previousDataset : null;

/** A notice that states no date takes the one its page (or the command line) gives; the PDF's own date wins. */
function datedByPage(doc: SourceDocument, parsed: ParsedSource): ParsedSource {
  if (!doc.noticeDate) return parsed;
  return { ...parsed, notices: parsed.notices.map((notice) => ({ ...notice, effectiveFrom: notice.effectiveFrom ?? doc.noticeDate! })) };
}

/** Reading the sources and computing the release: nothing here writes outside the scratch directory. */
export const BUILD_STEPS: Step<BuildState>[] = [
  {
    name: 'parse',
    dryRunSafe: true,
    run: async (state, say) => {
      const each = await timer(state)('parse', () =>
        Promise.all(state.documents.map(async (doc) => datedByPage(doc, doc.parsed ?? (await parseSource(doc.bytes, doc.name))))),
      );
      state.parsed = {
        lists: each.flatMap((p) => p.lists),
        notices: each.flatMap((p) => p.notices),
        setAside: each.flatMap((p) => p.setAside),
      };
      say(`${state.documents.length} document(s): ${state.parsed.lists.length} list(s), ${state.parsed.notices.length} notice(s)`);
      for (const doc of state.parsed.setAside) say(`set aside ${doc.source}: ${doc.detail}`);
    },
  },
  {
    name: 'select',
    dryRunSafe: true,
    run: async (state, say) => {
      const tariff = await timer(state)('normalise', () => selectTariff(state.parsed!, state.date, usablePrevious(state)?.products));
      state.tariff = tariff;
      say(`the tariff in force on ${state.date} dates from ${tariff.tariffDate}: ${tariff.products.length} products`);
    },
  },
  {
    name: 'assemble',
    dryRunSafe: true,
    run: async (state, say) => {
      state.assembled = await timer(state)('normalise', () => assembleDataset(state.tariff!, state.barcodes));
      const skipped = state.assembled.skippedBarcodes.length;
      say(`${state.assembled.content.barcodes.length} approved barcode(s) added${skipped > 0 ? `, ${skipped} left out` : ''}`);
    },
  },
  {
    name: 'check',
    dryRunSafe: true,
    run: async (state, say) => {
      const { products } = state.assembled!.content;
      const previousDataset = usablePrevious(state);
      const guard = { maxPercent: state.maxShrinkPercent, allowed: state.allowShrink };
      checkShrink(state.previous?.counts.products ?? null, products.length, guard);
      const before = previousDataset ? categoryCounts(previousDataset.products) : null;
      checkCategoryShrink(before, categoryCounts(products), guard);
      say(
        state.previous
          ? `${products.length} products against ${state.previous.counts.products} in ${state.previous.version}: within the ${state.maxShrinkPercent} % a release may drop${state.allowShrink ? ' (or allowed)' : ''}`
          : `${products.length} products: nothing to compare with`,
      );
    },
  },
  {
    name: 'build',
    dryRunSafe: true,
    run: async (state, say) => {
      const rendered = await renderRelease({
        content: state.assembled!.content,
        baseUrl: state.baseUrl,
        previous: state.previous,
        previousDataset: usablePrevious(state),
        takenVersions: state.takenVersions,
        now: state.now,
        scratchDir: state.scratchDir,
        time: timer(state),
      });
      const { skippedBarcodes } = state.assembled!;
      state.built = {
        ...rendered,
        skippedBarcodes,
        pending: state.tariff!.pending,
        notices: state.tariff!.notices,
        duplicates: state.tariff!.duplicates,
        setAside: state.parsed!.setAside,
        timings: state.timings,
      };
      for (const line of describeBuild(state.built, state.destination ?? 'memory')) say(line);
    },
  },
];

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
  for (const d of built.duplicates)
    lines.push(
      `code ${d.admCode} printed twice in ${d.source}: kept "${d.kept.name}" ${d.kept.pack} (${d.reason}), left out "${d.left.name}" ${d.left.pack} (${d.left.where})`,
    );
  if (built.skippedBarcodes.length > 0)
    lines.push(`left out ${built.skippedBarcodes.length} barcode(s) whose tariff code is not in the tariff in force`);
  for (const list of built.pending) lines.push(`waiting: ${list.category} list takes effect on ${list.effectiveFrom} (${list.source})`);
  for (const notice of built.notices) {
    if (notice.status === 'undated')
      lines.push(
        `not applied: the price-change notice states no effective date, nor did its page (${notice.source}); give it with --notice-date`,
      );
    else if (notice.status === 'pending')
      lines.push(`waiting: price-change notice takes effect on ${notice.effectiveFrom} (${notice.source})`);
    else if (notice.status === 'superseded')
      lines.push(`notice of ${notice.effectiveFrom} is already part of the list in force (${notice.source})`);
    else lines.push(`applied the notice of ${notice.effectiveFrom} to ${notice.applied} product(s) (${notice.source})`);
    for (const problem of notice.problems.slice(0, 20)) lines.push(`notice: ${problem}`);
    if (notice.problems.length > 20) lines.push(`notice: … and ${notice.problems.length - 20} more`);
  }
  return lines;
}
