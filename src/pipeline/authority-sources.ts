import type { Settings } from '../config/settings.ts';
import { errors } from '../errors.ts';
import { fetchAll, type SourceReport } from '../fetch/fetch-all.ts';
import { fetchPages } from '../fetch/fetch-pages.ts';
import { fetchAgent } from '../fetch/fetch-source.ts';
import { fetchSettings } from '../fetch/fetch-settings.ts';
import { SnapshotStore } from '../fetch/snapshot-store.ts';
import type { CategoryCoverage } from '../fetch/collect-documents.ts';
import { DATASET_CATEGORIES, feedCategoriesOf, REQUIRED_BY_DEFAULT } from '../source/categories.ts';
import type { SourceDocument } from '../source/source-types.ts';
import { prewarmPdfReader } from '../source/pdf/read-pdf-runs.ts';
import { dateInRome } from '../util/dates.ts';
import { describeReport } from './describe-sources.ts';

export interface AuthorityDocuments {
  reports: SourceReport[];
  documents: SourceDocument[];
  /** Which categories the pages linked (none without pages). */
  categories?: CategoryCoverage;
}

/** The categories the pages must link: the setting's, checked by name, or the default ones. */
function requiredCategories(settings: Settings) {
  const { categories, unknown } = feedCategoriesOf(settings.categories ?? REQUIRED_BY_DEFAULT);
  if (unknown !== null)
    throw errors.settingInvalid(`categories: "${unknown}" is not a category; the categories are ${DATASET_CATEGORIES.join(', ')}`);
  return categories;
}

export interface AuthorityFetch {
  dataDir: string;
  now: () => Date;
  /** The day the run builds for (`--date`): documents are past, today's or future against it. Default: today in Italy. */
  today?: string;
  /** A dry run keeps nothing: no snapshot, no state file written. */
  readOnly?: boolean;
  say: (line: string) => void;
  /** Download progress, for a terminal's bars. */
  progress?: (label: string, received: number, total: number | null) => void;
  done?: (label: string) => void;
}

/**
 * Fetches the authority's publications: through its pages (`sourcePages`: each category's
 * current list and the notices, found by their links) and single documents (`sourceUrls`), with
 * conditional requests, bounded retries, and snapshots kept until a newer list takes effect.
 * Returns every document a build may need and one report per source.
 */
export async function fetchFromAuthority(settings: Settings, options: AuthorityFetch): Promise<AuthorityDocuments> {
  const { sourceUrls: urls, sourcePages: pages } = settings;
  if (urls.length === 0 && pages.length === 0) throw errors.noSources();
  const required = requiredCategories(settings);
  // The authority publishes PDFs: the reader's threads load PDFium while the pages download.
  if (pages.length > 0) prewarmPdfReader();
  const { connectTimeoutMs, ...fetch } = fetchSettings(settings, options.now);
  const dispatcher = fetchAgent(connectTimeoutMs);
  try {
    const store = new SnapshotStore(options.dataDir, { readOnly: options.readOnly });
    const today = options.today ?? dateInRome(options.now());
    const hooks = {
      onProgress: (url: string, received: number, total: number | null) => options.progress?.(`download ${url}`, received, total),
      onRetry: (url: string, attempt: number, delay: number, reason: string) =>
        options.say(`${url}: ${reason}; retry ${attempt + 1} in ${Math.round(delay / 1000)} s`),
      // Said when known, not at the end: under cron, a slow list must not hold back the lines before it.
      onReport: (report: SourceReport) => {
        options.done?.(`download ${report.url}`);
        options.say(describeReport(report));
      },
    };
    const none = { reports: [], documents: [], categories: undefined };
    const fromPages =
      pages.length > 0
        ? await fetchPages(pages, {
            store,
            today,
            fetch: { ...fetch, dispatcher },
            maxNotices: settings.maxNotices,
            required,
            allowedHosts: settings.sourceHosts,
            ...hooks,
          })
        : none;
    const fromUrls = urls.length > 0 ? await fetchAll(urls, { store, today, fetch: { ...fetch, dispatcher }, ...hooks }) : none;
    return {
      reports: [...fromPages.reports, ...fromUrls.reports],
      documents: [...fromPages.documents, ...fromUrls.documents],
      categories: fromPages.categories,
    };
  } finally {
    await dispatcher.close();
  }
}
