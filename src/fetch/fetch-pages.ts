import { errors } from '../errors.ts';
import { sha256Hex } from '../util/digests.ts';
import { CATEGORIES, type FeedCategory } from '../source/categories.ts';
import type { ParsedSource, SourceDocument } from '../source/source-types.ts';
import { classify, contentState, readContent, recordedContent, type Classified } from './classify-document.ts';
import { datedAgainst, failedReport, type SourceReport } from './fetch-all.ts';
import { fetchSource, type FetchOptions } from './fetch-source.ts';
import { discoverDocuments, type DiscoveredLink } from './discover-documents.ts';
import { retainDocuments, type DocumentsState } from './retain-documents.ts';
import type { SnapshotStore, SourceState } from './snapshot-store.ts';

export interface FetchPagesOptions {
  store: SnapshotStore;
  today: string;
  fetch: Omit<FetchOptions, 'onProgress' | 'onRetry'>;
  /** The most notices taken from the pages, in the order the pages link them. */
  maxNotices: number;
  /** Hosts besides the pages' own that their links may lead to (setting sourceHosts). */
  allowedHosts?: readonly string[];
  onProgress?: (url: string, received: number, total: number | null) => void;
  onRetry?: (url: string, attempt: number, delayMs: number, reason: string) => void;
  /** Each document's report, as soon as it is known. */
  onReport?: (report: SourceReport) => void;
}

const ALL_CATEGORIES = Object.keys(CATEGORIES) as FeedCategory[];

/** "heated_tobacco list": a category as the dataset names it, in every line and report. */
const listLabel = (category: FeedCategory) => `${CATEGORIES[category]} list`;

/** What one run through the pages shares: its options, the reports said so far, the clock's stamp. */
interface PagesRun {
  options: FetchPagesOptions;
  reports: SourceReport[];
  /** Each report is said as it happens (a slow list must not hold back what is known already). */
  report: (entry: SourceReport) => void;
  stamp: () => string;
  fetchOptions: (url: string) => FetchOptions;
}

function pagesRun(options: FetchPagesOptions): PagesRun {
  const reports: SourceReport[] = [];
  return {
    options,
    reports,
    report: (entry) => {
      reports.push(entry);
      options.onReport?.(entry);
    },
    stamp: () => options.fetch.now().toISOString(),
    fetchOptions: (url) => ({
      ...options.fetch,
      onProgress: (received, total) => options.onProgress?.(url, received, total),
      onRetry: (attempt, delay, reason) => options.onRetry?.(url, attempt, delay, reason),
    }),
  };
}

/** One page, downloaded whole (pages are small and tell which documents are current): the links it holds. */
async function readPage(run: PagesRun, page: string, hosts: Set<string>): Promise<DiscoveredLink[]> {
  const outcome = await fetchSource(page, {}, run.fetchOptions(page));
  if (outcome.kind !== 'downloaded') throw new Error('the server answered 304 Not Modified to an unconditional request');
  // Links are relative to where the page really is, after redirects.
  const found = discoverDocuments(new TextDecoder('utf-8').decode(outcome.bytes), outcome.finalUrl, {
    allowedHosts: new Set([...hosts, new URL(outcome.finalUrl).host]),
  });
  run.report({
    url: page,
    label: 'page',
    status: 'unchanged',
    sha256: sha256Hex(outcome.bytes),
    effectiveDates: [],
    newTariff: false,
    attempts: outcome.attempts,
    found: { documents: found.length },
    ...(outcome.finalUrl !== page ? { finalUrl: outcome.finalUrl } : {}),
  });
  return found;
}

/** Every page's links, each address once; a page that fails is reported and counted out. */
async function readPages(run: PagesRun, pages: string[]): Promise<{ links: DiscoveredLink[]; pagesRead: number }> {
  // Links are followed only to the pages' own hosts and those the operator names: never to a private address a page points at.
  const named = [...pages.map((page) => new URL(page).host), ...(run.options.allowedHosts ?? [])];
  const hosts = new Set(named.map((host) => host.toLowerCase()));
  const links = new Map<string, DiscoveredLink>();
  let pagesRead = 0;
  for (const page of pages) {
    try {
      for (const link of await readPage(run, page, hosts)) if (!links.has(link.url)) links.set(link.url, link);
      pagesRead++;
    } catch (error) {
      if (!(error instanceof Error)) throw error;
      run.report(failedReport(page, error.message, { label: 'page' }));
    }
  }
  return { links: [...links.values()], pagesRead };
}

/** A linked document as this run found it: its bytes' digest, what it is, and its state to record. */
interface LinkedDocument {
  sha256: string;
  classified: Classified;
  entry: SourceState;
  sameBytes: boolean;
  attempts: number;
  finalUrl: string;
  /** The document as parsed now, when its bytes were read anew and it is one the builds use. */
  parsed: ParsedSource | null;
}

/** Downloads one linked document conditionally and tells what it is (an unchanged one is not read again). */
async function readLinked(run: PagesRun, link: DiscoveredLink, known: SourceState | undefined): Promise<LinkedDocument> {
  const { store } = run.options;
  const outcome = await fetchSource(link.url, { etag: known?.etag, lastModified: known?.lastModified }, run.fetchOptions(link.url));
  const validators = outcome.kind === 'downloaded' ? outcome.validators : {};
  const sha256 = outcome.kind === 'downloaded' ? sha256Hex(outcome.bytes) : known?.sha256;
  if (!sha256) throw new Error('the server answered 304 Not Modified to an unconditional request');
  const kept = known?.sha256 === sha256 ? known : undefined;
  let content = recordedContent(kept);
  let parsed: ParsedSource | null = null;
  if (!content) {
    // Read anew: new bytes, or a state file from before documents were told apart (its snapshot is kept).
    const bytes = outcome.kind === 'downloaded' ? outcome.bytes : await store.read(sha256).catch(() => null);
    if (!bytes) throw new Error('the server answered 304 Not Modified, and no snapshot of the document is kept');
    const read = await readContent(bytes, link.url);
    content = read.content;
    parsed = read.parsed;
    if (parsed) await store.store(bytes, { url: link.url, fetchedAt: run.stamp(), ...validators });
  }
  const entry = {
    ...kept,
    sha256,
    ...validators,
    fetchedAt: kept ? kept.fetchedAt : run.stamp(),
    checkedAt: run.stamp(),
    ...contentState(content),
  };
  const classified = classify(content, link);
  return { sha256, classified, entry, sameBytes: Boolean(kept), attempts: outcome.attempts, finalUrl: outcome.finalUrl, parsed };
}

/** What the documents gave: the snapshots kept by category and the notices, the categories listed, the failures. */
interface Collected {
  next: DocumentsState;
  listed: Set<FeedCategory>;
  notices: number;
  parsedNow: Map<string, ParsedSource>;
  failed: { link: DiscoveredLink; error: string; sha256: string | null }[];
  /** Digests of documents kept before this run: one seen again under another address is not new. */
  knownShas: Set<string>;
}

/** A document the builds take: a category's list, or a notice with its date. */
type Taken = Extract<Classified, { kind: 'list' }> | (Extract<Classified, { kind: 'notice' }> & { effectiveFrom: string });

const isTaken = (classified: Classified): classified is Taken =>
  classified.kind === 'list' || (classified.kind === 'notice' && classified.effectiveFrom !== null);

const ignoredLabel = (classified: Classified) =>
  classified.kind === 'campione' ? "Campione d'Italia list" : classified.kind === 'notice' ? 'notice' : 'document';

/** Takes a read document into the collection (a list by category, a dated notice) or reports it ignored. */
function takeDocument(run: PagesRun, collected: Collected, link: DiscoveredLink, doc: LinkedDocument): void {
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
 * A document that failed matters when its link names a category, or when a category has no list:
 * it may be that list. Otherwise (every list in hand) it is said, not a failure of the run.
 */
function reportFailedDocuments(run: PagesRun, collected: Collected): void {
  const complete = ALL_CATEGORIES.every((category) => collected.listed.has(category));
  for (const { link, error, sha256 } of collected.failed) {
    if (complete && !link.hintCategory)
      run.report({
        url: link.url,
        label: 'document',
        status: 'ignored',
        sha256: null,
        effectiveDates: [],
        newTariff: false,
        attempts: 0,
        error: `cannot be read (${error}); not needed: every category has its list`,
      });
    else run.report(failedReport(link.url, error, { label: link.hintCategory ? listLabel(link.hintCategory) : 'document', sha256 }));
  }
}

/** Pages that link no list at all changed beyond reading (an error); a category without its list is a failure said by name. */
function checkEveryCategory(run: PagesRun, pages: string[], read: { links: DiscoveredLink[]; pagesRead: number }, collected: Collected) {
  const { listed, failed } = collected;
  const allRead = read.pagesRead === pages.length;
  if (allRead && listed.size === 0 && !failed.some((f) => f.link.hintCategory))
    throw errors.sourcePageUnrecognised(pages, `no category price list (${ALL_CATEGORIES.join(', ')}) is linked`);
  for (const category of ALL_CATEGORIES) {
    // A category whose list failed to download or read is already reported with its reason.
    if (listed.has(category) || !allRead || failed.some((f) => f.link.hintCategory === category)) continue;
    // No address of its own: the line names the category and the pages it was looked for on.
    const detail = `none of the ${read.links.length} document(s) linked from ${pages.join(', ')} is the ${CATEGORIES[category]} list; its last snapshot stays in use`;
    run.report(failedReport('', detail, { label: listLabel(category) }));
  }
}

/** The kept snapshots as the build's documents: the lists, then the notices dated by their page or themselves. */
async function keptDocuments(store: SnapshotStore, retained: DocumentsState, parsedNow: Map<string, ParsedSource>) {
  const documents: SourceDocument[] = [];
  for (const doc of Object.values(retained.lists).flat())
    documents.push({ name: doc.url, bytes: await store.read(doc.sha256), parsed: parsedNow.get(doc.sha256) });
  for (const doc of retained.notices)
    documents.push({
      name: doc.url,
      bytes: await store.read(doc.sha256),
      parsed: parsedNow.get(doc.sha256),
      noticeDate: doc.effectiveFrom,
    });
  return documents;
}

/**
 * Fetches the authority's publications through its pages: downloads each page, then every
 * document it links (conditionally: an unchanged one costs a 304) and tells each apart by what it
 * holds: a category's national list and its date, a price-change notice (dated by itself, else by
 * the page around its link), a Campione d'Italia list or anything else (both reported and left
 * out). Link texts are only hints. The lists a build may need stay kept by category, whatever
 * their address: the list in force until a newer one takes effect, and every list and notice
 * waiting for its day.
 *
 * A page set that yields no category list at all is an error (the site changed): never an empty
 * release. A category without a list among the documents, or whose document fails, is reported as
 * failed and keeps its last snapshot.
 */
export async function fetchPages(
  pages: string[],
  options: FetchPagesOptions,
): Promise<{ reports: SourceReport[]; documents: SourceDocument[] }> {
  const { store } = options;
  const state = await store.readState();
  const previous = await store.readDocuments();
  const run = pagesRun(options);
  const read = await readPages(run, pages);
  const collected: Collected = {
    next: { lists: structuredClone(previous.lists), notices: [...previous.notices] },
    listed: new Set(),
    notices: 0,
    parsedNow: new Map(),
    failed: [],
    knownShas: new Set([...Object.values(previous.lists).flat(), ...previous.notices].map((doc) => doc.sha256)),
  };
  for (const link of read.links) {
    const known = state[link.url];
    try {
      const doc = await readLinked(run, link, known);
      state[link.url] = doc.entry;
      takeDocument(run, collected, link, doc);
    } catch (error) {
      if (!(error instanceof Error)) throw error;
      collected.failed.push({ link, error: error.message, sha256: known?.sha256 ?? null });
    }
  }
  reportFailedDocuments(run, collected);
  checkEveryCategory(run, pages, read, collected);
  // What the next builds need; the rest is left out of the state (its snapshot files stay).
  const retained = retainDocuments(collected.next, options.today, (feedCategory) => CATEGORIES[feedCategory as FeedCategory]);
  await store.writeState(state);
  await store.writeDocuments(retained);
  return { reports: run.reports, documents: await keptDocuments(store, retained, collected.parsedNow) };
}
