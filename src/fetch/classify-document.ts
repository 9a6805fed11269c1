import { isTariffError } from '../errors.ts';
import type { FeedCategory } from '../source/categories.ts';
import { parseSource, sourceFormat } from '../source/parse-source.ts';
import type { ParsedSource } from '../source/source-types.ts';
import type { DiscoveredLink } from './discover-documents.ts';
import type { SourceState } from './snapshot-store.ts';

/**
 * What a linked document holds, from its content alone: kept with its snapshot state, so a 304
 * needs no new reading. A notice's `statedDate` is the one the PDF itself states, if any.
 */
export type DocumentContent =
  | { kind: 'list'; category: FeedCategory; effectiveFrom: string }
  | { kind: 'notice'; statedDate: string | null; categories: string[] }
  | { kind: 'campione' | 'other'; detail: string };

/** A document as this run takes it: a notice dated by itself or by the page around its link, or not at all. */
export type Classified =
  | { kind: 'list'; category: FeedCategory; effectiveFrom: string }
  | { kind: 'notice'; effectiveFrom: string | null; categories: string[]; detail?: string }
  | { kind: 'campione' | 'other'; detail: string };

/** Reads a downloaded document and says what it is; `parsed` when it is one the builds use. */
export async function readContent(bytes: Uint8Array, url: string): Promise<{ content: DocumentContent; parsed: ParsedSource | null }> {
  const head = Buffer.from(bytes.subarray(0, 512)).toString('latin1');
  if (sourceFormat(bytes) === null || /<(!doctype\s+html|html)\b/i.test(head))
    return { content: { kind: 'other', detail: 'not a PDF or XML document (a web page?)' }, parsed: null };
  let parsed: ParsedSource;
  try {
    parsed = await parseSource(bytes, url);
  } catch (error) {
    if (isTariffError(error, 'source_not_price_list'))
      return { content: { kind: 'other', detail: 'not a price list or a price-change notice' }, parsed: null };
    throw error;
  }
  const list = parsed.lists[0];
  if (list) return { content: { kind: 'list', category: list.feedCategory, effectiveFrom: list.effectiveFrom }, parsed };
  const aside = parsed.setAside[0];
  if (aside) return { content: { kind: 'campione', detail: aside.detail }, parsed: null };
  const notice = parsed.notices[0]!;
  const categories = [...new Set(notice.changes.map((change) => change.category))];
  return { content: { kind: 'notice', statedDate: notice.effectiveFrom, categories }, parsed };
}

/**
 * The document as this run takes it. A notice that states no date (the authority's previews) takes
 * the one the news item around its link states ("con decorrenza dal …"), read anew on every run;
 * with none, or several, it stays undated: reported, never applied, never dated by guess.
 */
export function classify(content: DocumentContent, link: DiscoveredLink): Classified {
  if (content.kind !== 'notice') return content;
  const { statedDate, categories } = content;
  if (statedDate) return { kind: 'notice', effectiveFrom: statedDate, categories };
  if (link.contextDates.length === 1) return { kind: 'notice', effectiveFrom: link.contextDates[0]!, categories };
  const detail =
    link.contextDates.length === 0
      ? 'a price-change notice that states no effective date, nor does the page around its link: not applied (tariff build --notice-date gives it)'
      : `a price-change notice that states no effective date, and the page around its link states several (${link.contextDates.join(', ')}): not applied`;
  return { kind: 'notice', effectiveFrom: null, categories, detail };
}

/** The content as the snapshot state records it (`effectiveDates`: a list's date, a notice's own). */
export function contentState(content: DocumentContent): Pick<SourceState, 'kind' | 'categories' | 'detail' | 'effectiveDates'> {
  if (content.kind === 'list') return { kind: 'list', categories: [content.category], effectiveDates: [content.effectiveFrom] };
  if (content.kind === 'notice')
    return { kind: 'notice', categories: content.categories, effectiveDates: content.statedDate ? [content.statedDate] : [] };
  return { kind: content.kind, detail: content.detail, effectiveDates: [] };
}

/** What an unchanged document holds, as the state recorded it; null when it did not (state files of older builders). */
export function recordedContent(known: SourceState | undefined): DocumentContent | null {
  if (!known?.kind) return null;
  if (known.kind === 'list')
    return { kind: 'list', category: known.categories![0] as FeedCategory, effectiveFrom: known.effectiveDates[0]! };
  if (known.kind === 'notice') return { kind: 'notice', statedDate: known.effectiveDates[0] ?? null, categories: known.categories ?? [] };
  return { kind: known.kind, detail: known.detail ?? '' };
}
