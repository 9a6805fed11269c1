import { sha256Hex } from '../util/digests.ts';
import { CATEGORIES, type FeedCategory } from '../source/categories.ts';
import { failedReport, type SourceReport } from './fetch-all.ts';
import { fetchSource, type FetchOptions } from './fetch-source.ts';
import { discoverDocuments, type DiscoveredLink } from './discover-documents.ts';
import type { SnapshotStore } from './snapshot-store.ts';

export interface FetchPagesOptions {
  store: SnapshotStore;
  today: string;
  fetch: Omit<FetchOptions, 'onProgress' | 'onRetry'>;
  /** The most notices taken from the pages, in the order the pages link them. */
  maxNotices: number;
  /** The categories whose list the pages must link (setting categories); others are read when found. */
  required: readonly FeedCategory[];
  /** Hosts besides the pages' own that their links may lead to (setting sourceHosts). */
  allowedHosts?: readonly string[];
  onProgress?: (url: string, received: number, total: number | null) => void;
  onRetry?: (url: string, attempt: number, delayMs: number, reason: string) => void;
  /** Each document's report, as soon as it is known. */
  onReport?: (report: SourceReport) => void;
}

/** "heated_tobacco list": a category as the dataset names it, in every line and report. */
export const listLabel = (category: FeedCategory) => `${CATEGORIES[category]} list`;

/** What one run through the pages shares: its options, the reports said so far, the clock's stamp. */
export interface PagesRun {
  options: FetchPagesOptions;
  reports: SourceReport[];
  /** Each report is said as it happens (a slow list must not hold back what is known already). */
  report: (entry: SourceReport) => void;
  stamp: () => string;
  fetchOptions: (url: string) => FetchOptions;
}

export function pagesRun(options: FetchPagesOptions): PagesRun {
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
  // Links are judged by the hosts allowed before the page was read: a redirect does not widen them.
  const found = discoverDocuments(new TextDecoder('utf-8').decode(outcome.bytes), outcome.finalUrl, { allowedHosts: hosts });
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

export interface PagesRead {
  links: DiscoveredLink[];
  pagesRead: number;
}

/** Every page's links, each address once; a page that fails is reported and counted out. */
export async function readPages(run: PagesRun, pages: string[]): Promise<PagesRead> {
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
      run.report(failedReport(page, error, { label: 'page' }));
    }
  }
  return { links: [...links.values()], pagesRead };
}
