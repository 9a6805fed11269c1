import { isTariffError } from '../errors.ts';
import type { SourceDocument } from '../source/source-types.ts';
import { sha256Hex } from '../util/digests.ts';
import { parseSource } from '../source/parse-source.ts';
import { fetchSource, type FetchOptions } from './fetch-source.ts';
import type { SnapshotStore, SourcesState } from './snapshot-store.ts';

export type When = 'past' | 'today' | 'future';

export interface SourceReport {
  url: string;
  /** What the URL was fetched as, when found through a page: "page", "sigari list", "notice". */
  label?: string;
  /** Where the document really came from, when the address redirected. */
  finalUrl?: string;
  /** For a page: the number of documents it links to. */
  found?: { documents: number };
  /**
   * unchanged: same bytes as the last snapshot (or 304); changed: a new snapshot; failed: kept the
   * last one; ignored: a link that led to no notice.
   */
  status: 'unchanged' | 'changed' | 'failed' | 'ignored';
  sha256: string | null;
  /** The effective dates the list carries, and where each stands against today. */
  effectiveDates: { date: string; when: When }[];
  /** A changed list that brings a later effective date than the snapshot before it. */
  newTariff: boolean;
  attempts: number;
  error?: string;
  /** Why an ignored document could not be downloaded or read (not needed: every required list was in hand). */
  unreadable?: string;
}

/** Effective dates with where each stands against `today` (Italian days). */
export function datedAgainst(today: string): (dates: string[]) => SourceReport['effectiveDates'] {
  const when = (date: string): When => (date < today ? 'past' : date === today ? 'today' : 'future');
  return (dates) => dates.map((date) => ({ date, when: when(date) }));
}

/** The report of a source that could not be fetched: its last snapshot (if any) stays in use. */
export function failedReport(url: string, error: string | Error, extra: Partial<SourceReport> = {}): SourceReport {
  const message = typeof error === 'string' ? error : error.message;
  return {
    url,
    status: 'failed',
    sha256: null,
    effectiveDates: [],
    newTariff: false,
    attempts: attemptsOf(error),
    error: message,
    ...extra,
  };
}

/** The tries a failed download made (a fetch error says; another failure, a parse say, came after one). */
export function attemptsOf(error: string | Error): number {
  if (typeof error === 'string') return 0;
  const attempts = isTariffError(error, 'fetch_failed') ? error.params.attempts : undefined;
  return typeof attempts === 'number' ? attempts : 1;
}

export interface FetchAllOptions {
  store: SnapshotStore;
  /** Today in Italy, to say whether a tariff is past, today's or future. */
  today: string;
  fetch: Omit<FetchOptions, 'onProgress' | 'onRetry'>;
  onProgress?: (url: string, received: number, total: number | null) => void;
  onRetry?: (url: string, attempt: number, delayMs: number, reason: string) => void;
  /** Each source's report, as soon as it is known. */
  onReport?: (report: SourceReport) => void;
}

/**
 * Fetches every list, keeps each changed and valid download as a snapshot, and returns what it
 * saw with the latest valid snapshot of every URL (the sources of the next build). A download
 * that fails or does not parse never replaces the last good snapshot.
 */
export async function fetchAll(
  urls: string[],
  options: FetchAllOptions,
): Promise<{ reports: SourceReport[]; documents: SourceDocument[] }> {
  const state: SourcesState = await options.store.readState();
  const reports: SourceReport[] = [];
  // Each report is said as it happens (a slow list must not hold back what is known already).
  const report = (entry: SourceReport) => {
    reports.push(entry);
    options.onReport?.(entry);
  };
  const stamp = () => options.fetch.now().toISOString();
  const dated = datedAgainst(options.today);

  for (const url of urls) {
    const known = state[url];
    try {
      const outcome = await fetchSource(
        url,
        { etag: known?.etag, lastModified: known?.lastModified },
        {
          ...options.fetch,
          onProgress: (received, total) => options.onProgress?.(url, received, total),
          onRetry: (attempt, delay, reason) => options.onRetry?.(url, attempt, delay, reason),
        },
      );
      const moved = outcome.finalUrl !== url ? { finalUrl: outcome.finalUrl } : {};
      if (outcome.kind === 'not-modified' && known) {
        state[url] = { ...known, checkedAt: stamp() };
        report({
          url,
          status: 'unchanged',
          sha256: known.sha256,
          effectiveDates: dated(known.effectiveDates),
          newTariff: false,
          attempts: outcome.attempts,
          ...moved,
        });
        continue;
      }
      if (outcome.kind === 'not-modified') throw new Error('the server answered 304 Not Modified to an unconditional request');
      const sha256 = sha256Hex(outcome.bytes);
      if (known && known.sha256 === sha256) {
        state[url] = { ...known, ...outcome.validators, checkedAt: stamp() };
        report({
          url,
          status: 'unchanged',
          sha256,
          effectiveDates: dated(known.effectiveDates),
          newTariff: false,
          attempts: outcome.attempts,
          ...moved,
        });
        continue;
      }
      const parsed = await parseSource(outcome.bytes, url);
      const effectiveDates = [...new Set([...parsed.lists, ...parsed.notices].flatMap((doc) => doc.effectiveFrom ?? []))].sort();
      await options.store.store(outcome.bytes, { url, fetchedAt: stamp(), ...outcome.validators });
      const latest = effectiveDates.at(-1) ?? '';
      const newTariff = !known || latest > (known.effectiveDates.at(-1) ?? '');
      const earlier = known ? [{ sha256: known.sha256, effectiveDates: known.effectiveDates }, ...(known.kept ?? [])] : [];
      const kept = keptEarlier(earlier, effectiveDates, options.today);
      state[url] = {
        sha256,
        ...outcome.validators,
        fetchedAt: stamp(),
        checkedAt: stamp(),
        effectiveDates,
        ...(kept.length > 0 ? { kept } : {}),
      };
      report({
        url,
        status: 'changed',
        sha256,
        effectiveDates: dated(effectiveDates),
        newTariff,
        attempts: outcome.attempts,
        ...moved,
      });
    } catch (error) {
      if (!isTariffError(error) && !(error instanceof Error)) throw error;
      report(failedReport(url, error as Error, { sha256: known?.sha256 ?? null, effectiveDates: dated(known?.effectiveDates ?? []) }));
    }
  }
  await options.store.writeState(state);

  const documents: SourceDocument[] = [];
  for (const url of urls) {
    const known = state[url];
    if (!known) continue;
    for (const earlier of known.kept ?? [])
      documents.push({ name: `${url} (snapshot ${earlier.sha256.slice(0, 12)})`, bytes: await options.store.read(earlier.sha256) });
    documents.push({ name: url, bytes: await options.store.read(known.sha256) });
  }
  return { reports, documents };
}

type Snapshot = { sha256: string; effectiveDates: string[] };

/**
 * The earlier snapshots of a URL to keep beside its latest: while the latest takes effect after
 * today, the newest earlier one already in force stays (with any other that also waits), so a
 * list published ahead of its day never takes the one in force out of a release.
 */
export function keptEarlier(earlier: Snapshot[], latestDates: string[], today: string): Snapshot[] {
  const dateOf = (dates: string[]) => dates[0] ?? '';
  if (dateOf(latestDates) <= today) return [];
  const inForce = earlier
    .filter((s) => dateOf(s.effectiveDates) <= today)
    .sort((a, b) => dateOf(a.effectiveDates).localeCompare(dateOf(b.effectiveDates)))
    .at(-1);
  return earlier
    .filter((s) => s === inForce || dateOf(s.effectiveDates) > today)
    .filter((s, i, all) => all.findIndex((o) => o.sha256 === s.sha256) === i);
}
