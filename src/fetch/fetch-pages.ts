import { errors, isTariffError } from '../errors.ts';
import { sha256Hex } from '../release/gzip.ts';
import { CATEGORIES, type FeedCategory } from '../source/categories.ts';
import { parseSource, sourceFormat } from '../source/parse-source.ts';
import type { ParsedSource, SourceDocument } from '../source/source-types.ts';
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
  onProgress?: (url: string, received: number, total: number | null) => void;
  onRetry?: (url: string, attempt: number, delayMs: number, reason: string) => void;
}

const ALL_CATEGORIES = Object.keys(CATEGORIES) as FeedCategory[];

/** What a linked document turned out to be, from its content. */
type Classified =
  | { kind: 'list'; category: FeedCategory; effectiveFrom: string }
  | { kind: 'notice'; effectiveFrom: string | null; categories: string[]; detail?: string }
  | { kind: 'campione' | 'other'; detail: string };

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
  const stamp = () => options.fetch.now().toISOString();
  const dated = datedAgainst(options.today);
  const fetchOptions = (url: string): FetchOptions => ({
    ...options.fetch,
    onProgress: (received, total) => options.onProgress?.(url, received, total),
    onRetry: (attempt, delay, reason) => options.onRetry?.(url, attempt, delay, reason),
  });

  // 1. The pages, always downloaded whole: they are small and tell which documents are current.
  const links: DiscoveredLink[] = [];
  let pagesRead = 0;
  for (const page of pages) {
    try {
      const outcome = await fetchSource(page, {}, fetchOptions(page));
      if (outcome.kind !== 'downloaded') throw new Error('the server answered 304 Not Modified to an unconditional request');
      // Links are relative to where the page really is, after redirects.
      const found = discoverDocuments(new TextDecoder('utf-8').decode(outcome.bytes), outcome.finalUrl);
      for (const link of found) if (!links.some((known) => known.url === link.url)) links.push(link);
      pagesRead++;
      reports.push({
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
      reports.push(failedReport(page, error.message, { label: 'page' }));
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
      const stored = outcome.kind === 'downloaded' ? null : known ? await options.store.read(known.sha256).catch(() => null) : null;
      const sha256 = outcome.kind === 'downloaded' ? sha256Hex(outcome.bytes) : known?.sha256;
      if (!sha256) throw new Error('the server answered 304 Not Modified to an unconditional request');
      const sameBytes = known?.sha256 === sha256;
      let classified = sameBytes ? knownClassification(known) : null;
      if (!classified) {
        const bytes = outcome.kind === 'downloaded' ? outcome.bytes : stored;
        if (!bytes) throw new Error('the server answered 304 Not Modified, and no snapshot of the document is kept');
        const read = await classify(bytes, link);
        classified = read.classified;
        if (read.parsed) {
          await options.store.store(bytes, { url: link.url, fetchedAt: stamp(), ...validators });
          parsedNow.set(sha256, read.parsed);
        }
      }
      const effectiveDates = classified.kind === 'list' || classified.kind === 'notice' ? [classified.effectiveFrom ?? []].flat() : [];
      state[link.url] = {
        ...(sameBytes ? known : {}),
        sha256,
        ...validators,
        fetchedAt: sameBytes ? known!.fetchedAt : stamp(),
        checkedAt: stamp(),
        effectiveDates,
        ...stateOf(classified),
      };
      const changed = !sameBytes && !knownShas.has(sha256);
      const base = { url: link.url, sha256, attempts: outcome.attempts, ...redirected };
      if (classified.kind === 'campione' || classified.kind === 'other' || (classified.kind === 'notice' && !classified.effectiveFrom)) {
        reports.push({
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
      const label = classified.kind === 'list' ? `${classified.category} list` : 'notice';
      reports.push({
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
      reports.push({
        url: link.url,
        label: 'document',
        status: 'ignored',
        sha256: null,
        effectiveDates: [],
        newTariff: false,
        attempts: 0,
        error: `cannot be read (${error}); not needed: every category has its list`,
      });
    else reports.push(failedReport(link.url, error, { label: link.hintCategory ? `${link.hintCategory} list` : 'document', sha256 }));
  }
  if (pagesRead === pages.length && listed.size === 0 && !failedDocuments.some((failed) => failed.link.hintCategory)) {
    throw errors.sourcePageUnrecognised(pages, `no category price list (${ALL_CATEGORIES.join(', ')}) is linked`);
  }
  for (const category of ALL_CATEGORIES) {
    // A category whose list failed to download or read is already reported with its reason.
    if (listed.has(category) || pagesRead < pages.length || failedDocuments.some((f) => f.link.hintCategory === category)) continue;
    reports.push(
      failedReport(
        pages.join(' '),
        `none of the ${links.length} document(s) linked from the page(s) is the ${category} list; its last snapshot stays in use`,
        {
          label: `${category} list`,
        },
      ),
    );
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

/** Reads a downloaded document and says what it is; `parsed` when it is one the builds use. */
async function classify(bytes: Uint8Array, link: DiscoveredLink): Promise<{ classified: Classified; parsed: ParsedSource | null }> {
  const head = Buffer.from(bytes.subarray(0, 512)).toString('latin1');
  if (sourceFormat(bytes) === null || /<(!doctype\s+html|html)\b/i.test(head))
    return { classified: { kind: 'other', detail: 'not a PDF or XML document (a web page?)' }, parsed: null };
  let parsed: ParsedSource;
  try {
    parsed = await parseSource(bytes, link.url);
  } catch (error) {
    if (isTariffError(error) && error.code === 'source_not_price_list')
      return { classified: { kind: 'other', detail: 'not a price list or a price-change notice' }, parsed: null };
    throw error;
  }
  const list = parsed.lists[0];
  if (list) return { classified: { kind: 'list', category: list.feedCategory, effectiveFrom: list.effectiveFrom }, parsed };
  const aside = parsed.setAside[0];
  if (aside) return { classified: { kind: 'campione', detail: aside.detail }, parsed: null };
  const notice = parsed.notices[0]!;
  const categories = [...new Set(notice.changes.map((change) => change.category))];
  if (notice.effectiveFrom) return { classified: { kind: 'notice', effectiveFrom: notice.effectiveFrom, categories }, parsed };
  // A preview states no date: the news item that links it does ("con decorrenza dal …"); never guessed.
  if (link.contextDates.length === 1) return { classified: { kind: 'notice', effectiveFrom: link.contextDates[0]!, categories }, parsed };
  const detail =
    link.contextDates.length === 0
      ? 'a price-change notice that states no effective date, nor does the page around its link: not applied (tariff build --notice-date gives it)'
      : `a price-change notice that states no effective date, and the page around its link states several (${link.contextDates.join(', ')}): not applied`;
  return { classified: { kind: 'notice', effectiveFrom: null, categories, detail }, parsed };
}

function stateOf(classified: Classified): Pick<SourceState, 'kind' | 'categories' | 'detail'> {
  if (classified.kind === 'list') return { kind: 'list', categories: [classified.category] };
  if (classified.kind === 'notice')
    return { kind: 'notice', categories: classified.categories, ...(classified.detail ? { detail: classified.detail } : {}) };
  return { kind: classified.kind, detail: classified.detail };
}

/** What an unchanged document was, as the state recorded it; null when it did not (older state files). */
function knownClassification(known: SourceState | undefined): Classified | null {
  if (!known?.kind) return null;
  if (known.kind === 'list')
    return { kind: 'list', category: known.categories![0] as FeedCategory, effectiveFrom: known.effectiveDates[0]! };
  if (known.kind === 'notice')
    return { kind: 'notice', effectiveFrom: known.effectiveDates[0] ?? null, categories: known.categories ?? [], detail: known.detail };
  return { kind: known.kind, detail: known.detail ?? '' };
}
