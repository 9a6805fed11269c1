import { errors, isTariffError } from '../errors.ts';
import { CATEGORIES, FEED_CATEGORIES, type Category, type FeedCategory } from '../source/categories.ts';
import type { ParsedSource } from '../source/source-types.ts';
import type { Classified } from './classify-document.ts';
import { attemptsOf, datedAgainst, failedReport } from './fetch-all.ts';
import type { DiscoveredLink } from './discover-documents.ts';
import { listLabel, type PagesRead, type PagesRun } from './pages-run.ts';
import type { DocumentsState } from './retain-documents.ts';
import type { SourceState } from './snapshot-store.ts';

/** A linked document as this run found it: its bytes' digest, what it is, and its state to record. */
export interface LinkedDocument {
  sha256: string;
  classified: Classified;
  entry: SourceState;
  sameBytes: boolean;
  attempts: number;
  finalUrl: string;
  /** The document as parsed now, when its bytes were read anew and it is one the builds use. */
  parsed: ParsedSource | null;
}

/** What the documents gave: the snapshots kept by category and the notices, the categories listed, the failures. */
export interface Collected {
  next: DocumentsState;
  listed: Set<FeedCategory>;
  notices: number;
  parsedNow: Map<string, ParsedSource>;
  failed: { link: DiscoveredLink; error: Error; sha256: string | null }[];
  /** Digests of documents kept before this run: one seen again under another address is not new. */
  knownShas: Set<string>;
}

/** Which categories the pages had to link, and which of all they did and did not (for `tariff release --dry-run`). */
export interface CategoryCoverage {
  required: Category[];
  found: Category[];
  missing: Category[];
}

/** A document the builds take: a category's list, or a notice with its date. */
type Taken = Extract<Classified, { kind: 'list' }> | (Extract<Classified, { kind: 'notice' }> & { effectiveFrom: string });

const isTaken = (classified: Classified): classified is Taken =>
  classified.kind === 'list' || (classified.kind === 'notice' && classified.effectiveFrom !== null);

const ignoredLabel = (classified: Classified) =>
  classified.kind === 'campione' ? "Campione d'Italia list" : classified.kind === 'notice' ? 'notice' : 'document';

/** Takes a read document into the collection (a list by category, a dated notice) or reports it ignored. */
export function takeDocument(run: PagesRun, collected: Collected, link: DiscoveredLink, doc: LinkedDocument): void {
  const { classified, sha256 } = doc;
  if (doc.parsed) collected.parsedNow.set(sha256, doc.parsed);
  const base = { url: link.url, sha256, attempts: doc.attempts, ...(doc.finalUrl !== link.url ? { finalUrl: doc.finalUrl } : {}) };
  if (!isTaken(classified)) {
    const detail = 'detail' in classified ? classified.detail : undefined;
    run.report({ ...base, label: ignoredLabel(classified), status: 'ignored', effectiveDates: [], newTariff: false, error: detail });
    return;
  }
  const { fetchedAt } = doc.entry;
  if (classified.kind === 'list') {
    collected.listed.add(classified.category);
    (collected.next.lists[classified.category] ??= []).push({ sha256, url: link.url, effectiveFrom: classified.effectiveFrom, fetchedAt });
  } else {
    if (++collected.notices > run.options.maxNotices) return;
    const { effectiveFrom, categories } = classified;
    collected.next.notices.push({ sha256, url: link.url, effectiveFrom, fetchedAt, categories });
  }
  const changed = !doc.sameBytes && !collected.knownShas.has(sha256);
  const label = classified.kind === 'list' ? listLabel(classified.category) : 'notice';
  const effectiveDates = datedAgainst(run.options.today)([classified.effectiveFrom]);
  run.report({ ...base, label, status: changed ? 'changed' : 'unchanged', effectiveDates, newTariff: changed });
}

/**
 * A document that failed matters when its link names a category, or when a required category has
 * no list: it may be that list. Otherwise (every required list in hand) it is said, not a failure of the run.
 */
export function reportFailedDocuments(run: PagesRun, collected: Collected): void {
  const complete = run.options.required.every((category) => collected.listed.has(category));
  for (const { link, error, sha256 } of collected.failed) {
    if (complete && !link.hintCategory)
      run.report({
        url: link.url,
        label: 'document',
        status: 'ignored',
        sha256: null,
        effectiveDates: [],
        newTariff: false,
        attempts: attemptsOf(error),
        error: `cannot be read (${error.message}); not needed: every required category has its list`,
        unreadable: error.message,
      });
    else run.report(failedReport(link.url, error, { label: link.hintCategory ? listLabel(link.hintCategory) : 'document', sha256 }));
  }
}

/**
 * Pages that link no list at all changed beyond reading (an error); a required category without its
 * list is a failure said by name. A category not required is read when its list is found, and its
 * absence is no failure (the authority may publish no list of it).
 */
export function checkCategories(run: PagesRun, pages: string[], read: PagesRead, collected: Collected): CategoryCoverage {
  const { listed, failed } = collected;
  const allRead = read.pagesRead === pages.length;
  if (allRead && listed.size === 0 && !failed.some((f) => f.link.hintCategory))
    throw errors.sourcePageUnrecognised(pages, `no category price list (${FEED_CATEGORIES.join(', ')}) is linked`);
  for (const category of run.options.required) {
    // A category whose list failed to download or read is already reported with its reason.
    if (listed.has(category) || !allRead || failed.some((f) => f.link.hintCategory === category)) continue;
    // No address of its own: the line names the category and the pages it was looked for on.
    const detail = `none of the ${read.links.length} document(s) linked from ${pages.join(', ')} is the ${CATEGORIES[category]} list; its last snapshot stays in use`;
    run.report(failedReport('', detail, { label: listLabel(category) }));
  }
  const named = (categories: FeedCategory[]) => categories.map((category) => CATEGORIES[category]);
  return {
    required: named([...run.options.required]),
    found: named(FEED_CATEGORIES.filter((category) => listed.has(category))),
    missing: named(FEED_CATEGORIES.filter((category) => !listed.has(category))),
  };
}

/**
 * The required categories with no list in hand (none read now, none kept from before) while a
 * document that may be their list was downloaded and could not be read: its link names the
 * category, or names none. A release then would leave the category out (a first release, a fresh
 * data dir), so it publishes nothing. A document that could not be downloaded (a 404, a network
 * fault) is not known to be a list: a category without a list then stays a failure said by name,
 * the other lists published, its last snapshot kept (checkCategories, reportFailedDocuments).
 */
export function unreadableRequired(run: PagesRun, collected: Collected): { category: string; failures: string[] }[] {
  const unread = collected.failed.filter(
    ({ error }) => isTariffError(error) && (error.code.startsWith('source_') || error.code === 'machine_busy'),
  );
  return run.options.required.flatMap((category) => {
    if ((collected.next.lists[category]?.length ?? 0) > 0) return [];
    const failures = unread
      .filter(({ link }) => link.hintCategory === category || !link.hintCategory)
      .map(({ link, error }) => (error.message.includes(link.url) ? error.message : `${link.url}: ${error.message}`));
    return failures.length > 0 ? [{ category: CATEGORIES[category], failures }] : [];
  });
}
