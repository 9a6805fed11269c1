import { errors, isTariffError } from '../errors.ts';
import { sha256Hex } from '../util/digests.ts';
import { CATEGORIES, type FeedCategory } from '../source/categories.ts';
import type { ParsedSource, SourceDocument } from '../source/source-types.ts';
import { classify, contentState, readContent, recordedContent } from './classify-document.ts';
import { datedAgainst, failedReport, type SourceReport } from './fetch-all.ts';
import { fetchSource, type FetchOptions } from './fetch-source.ts';
import { discoverDocuments, type DiscoveredLink } from './discover-documents.ts';
import { retainDocuments, type DocumentsState } from './retain-documents.ts';
import type { SnapshotStore } from './snapshot-store.ts';

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
  const state = await options.store.readState();
  const previous = await options.store.readDocuments();
  const reports: SourceReport[] = [];
  // Each report is said as it happens (a slow list must not hold back what is known already).
  const report = (entry: SourceReport) => {
    reports.push(entry);
    options.onReport?.(entry);
  };
  const stamp = () => options.fetch.now().toISOString();
  const dated = datedAgainst(options.today);
  const fetchOptions = (url: string): FetchOptions => ({
    ...options.fetch,
    onProgress: (received, total) => options.onProgress?.(url, received, total),
    onRetry: (attempt, delay, reason) => options.onRetry?.(url, attempt, delay, reason),
  });

  // 1. The pages, always downloaded whole: they are small and tell which documents are current.
  const links: DiscoveredLink[] = [];
  const linked = new Set<string>();
  // Links are followed only to the pages' own hosts and those the operator names: never to a private address a page points at.
  const hosts = new Set([...pages.map((page) => new URL(page).host), ...(options.allowedHosts ?? [])].map((host) => host.toLowerCase()));
  let pagesRead = 0;
  for (const page of pages) {
    try {
      const outcome = await fetchSource(page, {}, fetchOptions(page));
      if (outcome.kind !== 'downloaded') throw new Error('the server answered 304 Not Modified to an unconditional request');
      // Links are relative to where the page really is, after redirects.
      const found = discoverDocuments(new TextDecoder('utf-8').decode(outcome.bytes), outcome.finalUrl, {
        allowedHosts: new Set([...hosts, new URL(outcome.finalUrl).host]),
      });
      for (const link of found.filter((candidate) => !linked.has(candidate.url))) {
        linked.add(link.url);
        links.push(link);
      }
      pagesRead++;
      report({
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
    } catch (error) {
      if (!(error instanceof Error)) throw error;
      report(failedReport(page, error.message, { label: 'page' }));
    }
  }

  // 2. Every linked document, conditionally, told apart by its content.
  const next: DocumentsState = { lists: structuredClone(previous.lists), notices: [...previous.notices] };
  const parsedNow = new Map<string, ParsedSource>();
  const listed = new Set<FeedCategory>();
  const failedDocuments: { link: DiscoveredLink; error: string; sha256: string | null }[] = [];
  let notices = 0;
  const knownShas = new Set([...Object.values(previous.lists).flat(), ...previous.notices].map((doc) => doc.sha256));

  for (const link of links) {
    const known = state[link.url];
    try {
      const outcome = await fetchSource(link.url, { etag: known?.etag, lastModified: known?.lastModified }, fetchOptions(link.url));
      const validators = outcome.kind === 'downloaded' ? outcome.validators : {};
      const redirected = outcome.finalUrl !== link.url ? { finalUrl: outcome.finalUrl } : {};
      const sha256 = outcome.kind === 'downloaded' ? sha256Hex(outcome.bytes) : known?.sha256;
      if (!sha256) throw new Error('the server answered 304 Not Modified to an unconditional request');
      const sameBytes = known?.sha256 === sha256;
      let content = sameBytes ? recordedContent(known) : null;
      if (!content) {
        // Read anew: new bytes, or a state file from before documents were told apart (its snapshot is kept).
        const bytes = outcome.kind === 'downloaded' ? outcome.bytes : await options.store.read(sha256).catch(() => null);
        if (!bytes) throw new Error('the server answered 304 Not Modified, and no snapshot of the document is kept');
        const read = await readContent(bytes, link.url);
        content = read.content;
        if (read.parsed) {
          await options.store.store(bytes, { url: link.url, fetchedAt: stamp(), ...validators });
          parsedNow.set(sha256, read.parsed);
        }
      }
      const classified = classify(content, link);
      const effectiveDates = classified.kind === 'list' || classified.kind === 'notice' ? [classified.effectiveFrom ?? []].flat() : [];
      state[link.url] = {
        ...(sameBytes ? known : {}),
        sha256,
        ...validators,
        fetchedAt: sameBytes ? known!.fetchedAt : stamp(),
        checkedAt: stamp(),
        ...contentState(content),
      };
      const changed = !sameBytes && !knownShas.has(sha256);
      const base = { url: link.url, sha256, attempts: outcome.attempts, ...redirected };
      if (classified.kind === 'campione' || classified.kind === 'other' || (classified.kind === 'notice' && !classified.effectiveFrom)) {
        report({
          ...base,
          label: classified.kind === 'campione' ? "Campione d'Italia list" : classified.kind === 'notice' ? 'notice' : 'document',
          status: 'ignored',
          effectiveDates: [],
          newTariff: false,
          error: classified.detail,
        });
        continue;
      }
      const fetchedAt = sameBytes ? known!.fetchedAt : stamp();
      if (classified.kind === 'list') {
        listed.add(classified.category);
        (next.lists[classified.category] ??= []).push({ sha256, url: link.url, effectiveFrom: classified.effectiveFrom, fetchedAt });
      } else if (classified.kind === 'notice') {
        if (++notices > options.maxNotices) continue;
        next.notices.push({
          sha256,
          url: link.url,
          effectiveFrom: classified.effectiveFrom!,
          fetchedAt,
          categories: classified.categories,
        });
      }
      const label = classified.kind === 'list' ? listLabel(classified.category) : 'notice';
      report({
        ...base,
        label,
        status: changed ? 'changed' : 'unchanged',
        effectiveDates: dated(effectiveDates),
        newTariff: changed,
      });
    } catch (error) {
      if (!isTariffError(error) && !(error instanceof Error)) throw error;
      failedDocuments.push({ link, error: (error as Error).message, sha256: known?.sha256 ?? null });
    }
  }
  // A document that failed matters when its link names a category, or when a category has no list:
  // it may be that list. Otherwise (every list in hand) it is said, not a failure of the run.
  const complete = ALL_CATEGORIES.every((category) => listed.has(category));
  for (const { link, error, sha256 } of failedDocuments) {
    if (complete && !link.hintCategory)
      report({
        url: link.url,
        label: 'document',
        status: 'ignored',
        sha256: null,
        effectiveDates: [],
        newTariff: false,
        attempts: 0,
        error: `cannot be read (${error}); not needed: every category has its list`,
      });
    else report(failedReport(link.url, error, { label: link.hintCategory ? listLabel(link.hintCategory) : 'document', sha256 }));
  }
  if (pagesRead === pages.length && listed.size === 0 && !failedDocuments.some((failed) => failed.link.hintCategory)) {
    throw errors.sourcePageUnrecognised(pages, `no category price list (${ALL_CATEGORIES.join(', ')}) is linked`);
  }
  for (const category of ALL_CATEGORIES) {
    // A category whose list failed to download or read is already reported with its reason.
    if (listed.has(category) || pagesRead < pages.length || failedDocuments.some((f) => f.link.hintCategory === category)) continue;
    // No address of its own: the line names the category and the pages it was looked for on.
    const detail = `none of the ${links.length} document(s) linked from ${pages.join(', ')} is the ${CATEGORIES[category]} list; its last snapshot stays in use`;
    report(failedReport('', detail, { label: listLabel(category) }));
  }

  // 3. What the next builds need; the rest is left out of the state (its snapshot files stay).
  const retained = retainDocuments(next, options.today, (feedCategory) => CATEGORIES[feedCategory as FeedCategory]);
  await options.store.writeState(state);
  await options.store.writeDocuments(retained);

  const documents: SourceDocument[] = [];
  for (const doc of Object.values(retained.lists).flat()) {
    documents.push({ name: doc.url, bytes: await options.store.read(doc.sha256), parsed: parsedNow.get(doc.sha256) });
  }
  for (const doc of retained.notices) {
    documents.push({
      name: doc.url,
      bytes: await options.store.read(doc.sha256),
      parsed: parsedNow.get(doc.sha256),
      noticeDate: doc.effectiveFrom,
    });
  }
  return { reports, documents };
}
