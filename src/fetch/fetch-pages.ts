import { errors, isTariffError } from '../errors.ts';
import type { SourceDocument } from '../release/build-release.ts';
import { sha256Hex } from '../release/gzip.ts';
import { CATEGORIES, type FeedCategory } from '../source/categories.ts';
import { parseSource } from '../source/parse-source.ts';
import type { ParsedSource } from '../source/source-types.ts';
import { datedAgainst, failedReport, type SourceReport } from './fetch-all.ts';
import { fetchSource, type FetchOptions } from './fetch-source.ts';
import { discoverDocuments, type DiscoveredLink } from './discover-documents.ts';
import { retainDocuments, type DocumentsState } from './retain-documents.ts';
import type { SnapshotStore } from './snapshot-store.ts';

export interface FetchPagesOptions {
  store: SnapshotStore;
  today: string;
  fetch: Omit<FetchOptions, 'onProgress' | 'onRetry'>;
  /** The most notices taken from the pages, newest links first as the pages list them. */
  maxNotices: number;
  onProgress?: (url: string, received: number, total: number | null) => void;
  onRetry?: (url: string, attempt: number, delayMs: number, reason: string) => void;
}

const ALL_CATEGORIES = Object.keys(CATEGORIES) as FeedCategory[];

/**
 * Fetches the authority's publications through its pages: downloads each page, finds the
 * current list of every category and the price-change notices by their links' text, downloads
 * each conditionally and keeps it as a snapshot. The lists a build may need stay kept by
 * category, whatever their address (it changes with every update): the list in force until a
 * newer one takes effect, and every list and notice waiting for its day.
 *
 * A page set that yields no category list at all is an error (the site changed): never an empty
 * release. A category without a link, or whose document fails, is reported as failed and keeps
 * its last snapshot.
 */
export async function fetchPages(
  pages: string[],
  options: FetchPagesOptions,
): Promise<{ reports: SourceReport[]; documents: SourceDocument[] }> {
  const state = await options.store.readState();
  const previous = await options.store.readDocuments();
  const reports: SourceReport[] = [];
  const stamp = () => options.fetch.now().toISOString();
  const dated = datedAgainst(options.today);
  const fetchOptions = (url: string): FetchOptions => ({
    ...options.fetch,
    onProgress: (received, total) => options.onProgress?.(url, received, total),
    onRetry: (attempt, delay, reason) => options.onRetry?.(url, attempt, delay, reason),
  });

  // 1. The pages, always downloaded whole: they are small and tell which documents are current.
  const lists = new Map<FeedCategory, DiscoveredLink>();
  const notices: DiscoveredLink[] = [];
  let pagesRead = 0;
  for (const page of pages) {
    try {
      const outcome = await fetchSource(page, {}, fetchOptions(page));
      if (outcome.kind !== 'downloaded') throw new Error('the server answered 304 Not Modified to an unconditional request');
      // Links are relative to where the page really is, after redirects.
      const found = discoverDocuments(new TextDecoder('utf-8').decode(outcome.bytes), outcome.finalUrl);
      for (const [category, link] of found.lists) if (!lists.has(category)) lists.set(category, link);
      for (const link of found.notices) if (!notices.some((n) => n.url === link.url)) notices.push(link);
      pagesRead++;
      reports.push({
        url: page,
        label: 'page',
        status: 'unchanged',
        sha256: sha256Hex(outcome.bytes),
        effectiveDates: [],
        newTariff: false,
        attempts: outcome.attempts,
        found: { lists: [...found.lists.keys()], notices: found.notices.length },
        ...(outcome.finalUrl !== page ? { finalUrl: outcome.finalUrl } : {}),
      });
    } catch (error) {
      if (!(error instanceof Error)) throw error;
      reports.push(failedReport(page, error.message, { label: 'page' }));
    }
  }
  if (pagesRead === pages.length && lists.size === 0) {
    throw errors.sourcePageUnrecognised(pages, `no link to a category price list (${ALL_CATEGORIES.join(', ')}) was found`);
  }

  // 2. The documents, conditionally.
  const next: DocumentsState = { lists: structuredClone(previous.lists), notices: [...previous.notices] };
  const parsedNow = new Map<string, ParsedSource>();
  /**
   * Downloads one document and checks it is what its link promised; returns it when the builds
   * must now track it (a change, or, with `retrack`, known bytes the kept state lost).
   */
  const download = async (
    link: DiscoveredLink,
    label: string,
    check: (parsed: ParsedSource) => string | null,
    onMismatch: 'failed' | 'ignored' = 'failed',
    retrack = false,
  ) => {
    const known = state[link.url];
    try {
      const outcome = await fetchSource(link.url, { etag: known?.etag, lastModified: known?.lastModified }, fetchOptions(link.url));
      const validators = outcome.kind === 'downloaded' ? outcome.validators : {};
      const redirected = outcome.finalUrl !== link.url ? { finalUrl: outcome.finalUrl } : {};
      const bytes = outcome.kind === 'downloaded' ? outcome.bytes : known ? await options.store.read(known.sha256) : null;
      if (!bytes) throw new Error('the server answered 304 Not Modified to an unconditional request');
      const sha256 = sha256Hex(bytes);
      // The same document under a new address (the site re-published it) is no change either.
      const republished = [...Object.values(previous.lists).flat(), ...previous.notices].find((doc) => doc.sha256 === sha256);
      const sameBytes = known?.sha256 === sha256;
      if (republished || (sameBytes && !retrack)) {
        const effectiveDates = known?.effectiveDates ?? [republished!.effectiveFrom];
        state[link.url] = { ...known, sha256, ...validators, fetchedAt: known?.fetchedAt ?? stamp(), checkedAt: stamp(), effectiveDates };
        reports.push({
          url: link.url,
          label,
          status: 'unchanged',
          sha256,
          effectiveDates: dated(effectiveDates),
          newTariff: false,
          attempts: outcome.attempts,
          ...redirected,
        });
        return null;
      }
      const parsed = await parseSource(bytes, link.url).catch((error: unknown) => {
        if (onMismatch === 'ignored' && (error as { code?: string }).code === 'source_not_price_list') return null;
        throw error;
      });
      const problem = parsed ? check(parsed) : 'the document is not a price list or a price-change notice';
      if (problem && onMismatch === 'ignored') {
        reports.push({
          url: link.url,
          label,
          status: 'ignored',
          sha256: null,
          effectiveDates: [],
          newTariff: false,
          attempts: outcome.attempts,
          error: problem,
        });
        return null;
      }
      if (problem || !parsed) throw new Error(problem ?? 'unreadable');
      const effectiveFrom = (parsed.lists[0] ?? parsed.notices[0])!.effectiveFrom;
      await options.store.store(bytes, { url: link.url, fetchedAt: stamp(), ...validators });
      parsedNow.set(sha256, parsed);
      state[link.url] = { sha256, ...validators, fetchedAt: stamp(), checkedAt: stamp(), effectiveDates: [effectiveFrom] };
      reports.push({
        url: link.url,
        label,
        status: sameBytes ? 'unchanged' : 'changed',
        sha256,
        effectiveDates: dated([effectiveFrom]),
        newTariff: !sameBytes,
        attempts: outcome.attempts,
        ...redirected,
      });
      return { sha256, effectiveFrom, parsed };
    } catch (error) {
      if (!isTariffError(error) && !(error instanceof Error)) throw error;
      reports.push(failedReport(link.url, (error as Error).message, { label, sha256: known?.sha256 ?? null }));
      return null;
    }
  };

  for (const category of ALL_CATEGORIES) {
    const link = lists.get(category);
    const label = `${category} list`;
    if (!link) {
      if (pagesRead === pages.length)
        reports.push(
          failedReport(pages.join(' '), `no link to the ${category} list on the page(s); its last snapshot stays in use`, { label }),
        );
      continue;
    }
    // retrack: a list the site still links is always tracked, even if documents.json was lost.
    const changed = await download(
      link,
      label,
      (parsed) => {
        const list = parsed.lists[0];
        if (!list) return `expected the ${category} price list, found ${parsed.notices.length > 0 ? 'a price-change notice' : 'no list'}`;
        return list.feedCategory === category
          ? null
          : `the link "${link.text}" leads to the ${list.feedCategory} list, not the ${category} one`;
      },
      'failed',
      true,
    );
    if (changed)
      (next.lists[category] ??= []).push({
        sha256: changed.sha256,
        url: link.url,
        effectiveFrom: changed.effectiveFrom,
        fetchedAt: stamp(),
      });
  }

  for (const link of notices.slice(0, options.maxNotices)) {
    const changed = await download(
      link,
      'notice',
      (parsed) => (parsed.notices[0] ? null : 'the link reads like a price-change notice, but the document is not one'),
      'ignored',
    );
    if (!changed) continue;
    const categories = [...new Set(changed.parsed.notices[0]!.changes.map((change) => change.category))];
    next.notices.push({ sha256: changed.sha256, url: link.url, effectiveFrom: changed.effectiveFrom, fetchedAt: stamp(), categories });
  }

  // 3. What the next builds need; the rest is left out of the state (its snapshot files stay).
  const retained = retainDocuments(next, options.today, (feedCategory) => CATEGORIES[feedCategory as FeedCategory]);
  await options.store.writeState(state);
  await options.store.writeDocuments(retained);

  const documents: SourceDocument[] = [];
  for (const doc of [...Object.values(retained.lists).flat(), ...retained.notices]) {
    const bytes = await options.store.read(doc.sha256);
    documents.push({ name: doc.url, bytes, parsed: parsedNow.get(doc.sha256) });
  }
  return { reports, documents };
}
