import { errors } from '../errors.ts';
import { sha256Hex } from '../util/digests.ts';
import { CATEGORIES, type FeedCategory } from '../source/categories.ts';
import type { ParsedSource, SourceDocument } from '../source/source-types.ts';
import { classify, contentState, readContent, recordedContent } from './classify-document.ts';
import {
  checkCategories,
  reportFailedDocuments,
  takeDocument,
  unreadableRequired,
  type CategoryCoverage,
  type Collected,
  type LinkedDocument,
} from './collect-documents.ts';
import type { SourceReport } from './fetch-all.ts';
import { fetchSource } from './fetch-source.ts';
import type { DiscoveredLink } from './discover-documents.ts';
import { pagesRun, readPages, type FetchPagesOptions, type PagesRun } from './pages-run.ts';
import { retainDocuments, type DocumentsState } from './retain-documents.ts';
import type { SnapshotStore, SourceState } from './snapshot-store.ts';

export type { FetchPagesOptions } from './pages-run.ts';

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
 * release. A required category (`options.required`) without a list among the documents, or whose
 * document fails, is reported as failed and keeps its last snapshot.
 */
export async function fetchPages(
  pages: string[],
  options: FetchPagesOptions,
): Promise<{ reports: SourceReport[]; documents: SourceDocument[]; categories: CategoryCoverage }> {
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
      collected.failed.push({ link, error, sha256: known?.sha256 ?? null });
    }
  }
  reportFailedDocuments(run, collected);
  const categories = checkCategories(run, pages, read, collected);
  // What the next builds need; the rest is left out of the state (its snapshot files stay).
  const retained = retainDocuments(collected.next, options.today, (feedCategory) => CATEGORIES[feedCategory as FeedCategory]);
  await store.writeState(state);
  await store.writeDocuments(retained);
  // After the state is kept (the other lists' snapshots count): a required category that would be left out stops the run.
  const unreadable = unreadableRequired(run, collected);
  if (unreadable.length > 0) throw errors.requiredListUnreadable(unreadable);
  return { reports: run.reports, documents: await keptDocuments(store, retained, collected.parsedNow), categories };
}
