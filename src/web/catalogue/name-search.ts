import SearchableMap from 'minisearch/SearchableMap';
import { editDistance } from './edit-distance.ts';
import { farEdits, forgiving, indexTerms, nearEdits, searchWords } from './search-words.ts';

/**
 * How a name matched a search, best first: every word at the start of a word of the name
 * (`words`); some word within the near edits of one (`near`); only within the far edits, which
 * count only when nothing matched nearer (`far`).
 */
export type MatchTier = 'words' | 'near' | 'far';
const TIER_RANK: Record<MatchTier, number> = { words: 0, near: 1, far: 2 };

/** A name that matched: where it is in the list searched, and how well. */
export interface NameMatch {
  position: number;
  tier: MatchTier;
  /** Edits summed over the words (0 when every word is a prefix). */
  edits: number;
  /** Words matched only as the start of a longer word: a whole word ranks first. */
  partial: number;
  /** Matched only once two words were joined or one split: the words as typed rank first. */
  reshaped: boolean;
}

/** How one word of a search matched one name. */
interface WordMatch {
  edits: number;
  exact: boolean;
}

interface Named {
  name: string;
  pack: string;
}

/** The words a search holds at most: the form takes 100 characters, no name has more words. */
const MAX_WORDS = 12;
/** The words of names a word of a search nothing matched is compared with, for the closest names. */
const NEAREST_TERMS = 3;
/** A word split in two only where both halves are words of some name, each of at least this many letters. */
const MIN_PART = 3;

const betterMatch = (a: WordMatch | undefined, b: WordMatch) =>
  a === undefined || b.edits < a.edits || (b.edits === a.edits && b.exact && !a.exact) ? b : a;
const betterName = (a: NameMatch | undefined, b: NameMatch) => (a === undefined || compareMatches(b, a) < 0 ? b : a);
const compareMatches = (a: NameMatch, b: NameMatch) =>
  TIER_RANK[a.tier] - TIER_RANK[b.tier] ||
  a.edits - b.edits ||
  Number(a.reshaped) - Number(b.reshaped) ||
  a.partial - b.partial ||
  a.position - b.position;

/**
 * Names (and packs) searched by words, forgiving how they are typed: prefixes, typos within a
 * few edits, words joined or split ("monte cristo" finds MONTECRISTO, "montecristo" finds MONTE
 * CRISTO), number designators however written (search-words.ts). The terms are kept in
 * MiniSearch's radix tree (its SearchableMap: prefix and fuzzy lookups), each with the names that
 * hold it; the tiers are decided here, with a swap of letters counted as one edit. No relevance
 * score is computed: the tiers and the names' order rank. A search reads nothing and changes nothing.
 */
export class NameSearch {
  /** Every term of a name or a pack, with the positions of the names that hold it. */
  private readonly terms = new SearchableMap<number[]>();
  /** Every term of the names, with how many names hold it: for splitting a word, and for the closest names. */
  private readonly vocabulary = new Map<string, number>();
  /** The terms of the names a typo may be forgiven in (letters only): what a word nothing matched is compared with. */
  private readonly words: string[];

  constructor(names: readonly Named[]) {
    names.forEach((named, position) => {
      const nameTerms = new Set(indexTerms(named.name));
      for (const term of new Set([...nameTerms, ...indexTerms(named.pack)]))
        this.terms.update(term, (held = []) => (held.push(position), held));
      for (const term of nameTerms) this.vocabulary.set(term, (this.vocabulary.get(term) ?? 0) + 1);
    });
    this.words = [...this.vocabulary.keys()].filter(forgiving);
  }

  /** The names holding every word of the text, best first (a text without words matches none). */
  find(text: string): NameMatch[] {
    const words = searchWords(text).slice(0, MAX_WORDS);
    if (words.length === 0) return [];
    const cache = new Map<string, Map<number, WordMatch>>();
    const matchesOf = (word: string) => cache.get(word) ?? cache.set(word, this.wordMatches(word)).get(word)!;
    const best = new Map<number, NameMatch>();
    this.variants(words).forEach((variant, i) => {
      for (const match of namesMatching(variant, variant.map(matchesOf), i > 0))
        best.set(match.position, betterName(best.get(match.position), match));
    });
    const found = [...best.values()];
    // The far edits count only when nothing nearer was found: "romeo" lists ROMEO, not ROSSO after it.
    const near = found.filter((match) => match.tier !== 'far');
    return (near.length > 0 ? near : found).sort(compareMatches);
  }

  /**
   * The positions of the names closest to a text nothing matched ("Forse cercavi …"): for each
   * word, the words of names the fewest edits away; the names holding the most of those, and of
   * them the fewest edits away.
   */
  closest(text: string): number[] {
    const words = searchWords(text).slice(0, MAX_WORDS);
    const score = new Map<number, { found: number; edits: number }>();
    for (const word of words) {
      const { terms, edits } = this.nearestTerms(word);
      if (terms.length === 0) continue;
      for (const position of new Set(terms.flatMap((term) => this.terms.get(term) ?? []))) {
        const seen = score.get(position) ?? { found: 0, edits: 0 };
        score.set(position, { found: seen.found + 1, edits: seen.edits + edits });
      }
    }
    const ranked = [...score.entries()].sort(([a, x], [b, y]) => y.found - x.found || x.edits - y.edits || a - b);
    const best = ranked[0]?.[1];
    return ranked.filter(([, s]) => s.found === best!.found && s.edits === best!.edits).map(([position]) => position);
  }

  /** The words as typed, then with two neighbours joined or one split where both halves are words of names. */
  private variants(words: string[]): string[][] {
    const variants = [words];
    for (let i = 0; i + 1 < words.length; i++) {
      if (/^\p{L}+$/u.test(words[i]!) && /^\p{L}+$/u.test(words[i + 1]!))
        variants.push([...words.slice(0, i), words[i]! + words[i + 1]!, ...words.slice(i + 2)]);
    }
    words.forEach((word, i) => {
      for (let cut = MIN_PART; cut <= word.length - MIN_PART; cut++) {
        const [head, tail] = [word.slice(0, cut), word.slice(cut)];
        if (this.vocabulary.has(head) && this.vocabulary.has(tail))
          variants.push([...words.slice(0, i), head, tail, ...words.slice(i + 1)]);
      }
    });
    return variants;
  }

  /** The names one word matches, each with how: by prefix (0 edits), or within its far edits. */
  private wordMatches(word: string): Map<number, WordMatch> {
    const far = farEdits(word);
    const matches = new Map<number, WordMatch>();
    const add = (positions: number[], match: WordMatch) => {
      for (const position of positions) matches.set(position, betterMatch(matches.get(position), match));
    };
    for (const [term, positions] of this.terms.atPrefix(word)) add(positions, { edits: 0, exact: term === word });
    if (far === 0) return matches;
    // The radix tree finds the terms within `far` edits counting a swap as two; counted here as one.
    for (const [term, [positions]] of this.terms.fuzzyGet(word, far)) {
      if (term.startsWith(word)) continue;
      const edits = editDistance(word, term, far);
      if (edits <= far) add(positions, { edits, exact: false });
    }
    return matches;
  }

  /**
   * The words of names the fewest edits from this one (any number of edits), and how many: of
   * those as near, the ones most names hold (a word of many names is the likelier one meant).
   */
  private nearestTerms(word: string): { terms: string[]; edits: number } {
    let edits = Infinity;
    let terms: string[] = [];
    // A number nothing matched has no near one: another number is another product.
    if (!forgiving(word)) return { terms, edits };
    for (const term of this.words) {
      const distance = term.startsWith(word) ? 0 : editDistance(word, term, edits);
      if (distance < edits) [edits, terms] = [distance, [term]];
      else if (distance === edits) terms.push(term);
    }
    const held = (term: string) => this.vocabulary.get(term)!;
    return { terms: terms.sort((a, b) => held(b) - held(a) || a.localeCompare(b)).slice(0, NEAREST_TERMS), edits };
  }
}

/** The names every word of one variant matched, each with its tier. */
function namesMatching(words: string[], perWord: Map<number, WordMatch>[], reshaped: boolean): NameMatch[] {
  const [fewest, ...others] = [...perWord].sort((a, b) => a.size - b.size);
  const found: NameMatch[] = [];
  for (const position of fewest!.keys()) {
    if (!others.every((matches) => matches.has(position))) continue;
    let edits = 0;
    let partial = 0;
    let near = true;
    words.forEach((word, i) => {
      const match = perWord[i]!.get(position)!;
      edits += match.edits;
      if (!match.exact) partial++;
      if (match.edits > nearEdits(word)) near = false;
    });
    found.push({ position, tier: edits === 0 ? 'words' : near ? 'near' : 'far', edits, partial, reshaped });
  }
  return found;
}
