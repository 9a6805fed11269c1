/** A snapshot the next builds may need: one category list, or one price-change notice. */
export interface KeptDocument {
  sha256: string;
  url: string;
  effectiveFrom: string;
  fetchedAt: string;
  /** For a notice: the dataset categories its rows touch. */
  categories?: string[];
}

export interface DocumentsState {
  /** Per feed category, the lists kept, oldest first. */
  lists: Record<string, KeptDocument[]>;
  notices: KeptDocument[];
}

/**
 * Which snapshots to keep on `today`: for every category, the newest list already in force and
 * every list dated later (each waits for its day: a list published ahead must not take the one in
 * force out before then); every notice dated after the list in force of a category it touches
 * (older ones are part of that list already). Pure: the rule is tested on its own.
 */
export function retainDocuments(state: DocumentsState, today: string, categoryOf: (feedCategory: string) => string): DocumentsState {
  const lists: DocumentsState['lists'] = {};
  const inForce = new Map<string, string>();
  for (const [feedCategory, kept] of Object.entries(state.lists)) {
    const unique = [...new Map(kept.map((doc) => [doc.sha256, doc])).values()].sort(
      (a, b) => a.effectiveFrom.localeCompare(b.effectiveFrom) || a.fetchedAt.localeCompare(b.fetchedAt),
    );
    const current = unique.filter((doc) => doc.effectiveFrom <= today).at(-1);
    lists[feedCategory] = unique.filter((doc) => doc === current || doc.effectiveFrom > today);
    if (current) inForce.set(categoryOf(feedCategory), current.effectiveFrom);
  }
  const notices = [...new Map(state.notices.map((doc) => [doc.sha256, doc])).values()]
    .filter((doc) => (doc.categories ?? []).some((category) => doc.effectiveFrom > (inForce.get(category) ?? '')))
    .sort((a, b) => a.effectiveFrom.localeCompare(b.effectiveFrom) || a.url.localeCompare(b.url));
  return { lists, notices };
}
