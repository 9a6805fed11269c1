/**
 * Characters no name, pack, label or organisation may carry: control characters (C0 and C1: a
 * terminal obeys them, NeDB reads a datafile line holding U+0085 as corrupt, XML 1.0 forbids
 * them), line and paragraph separators, the bidirectional marks, embeddings, overrides and
 * isolates that reorder a line (U+202E shows a name's line backwards, prices included), lone
 * surrogates, noncharacters (U+FFFE, U+FFFF) and the byte-order mark.
 */
const UNSAFE_CLASS = String.raw`[\p{Cc}\p{Zl}\p{Zp}\p{Cs}\p{Noncharacter_Code_Point}\u200E\u200F\u202A-\u202E\u2066-\u2069\uFEFF]`;
const UNSAFE = new RegExp(UNSAFE_CLASS, 'gu');

/** The same, but for text whose line breaks and tabs are meant (a page's paragraph, a terminal's lines). */
const UNSAFE_BUT_LINES = new RegExp(
  String.raw`(?![
	])` + UNSAFE_CLASS,
  'gu',
);

/**
 * One line of text as stored, written and shown: every unsafe character becomes a space, runs of
 * white space fold into one, the ends are trimmed. The one rule for names and labels (docs/dataset.md).
 *
 * @example oneLine('MARLBORO\u0085 GOLD\u202E') === 'MARLBORO GOLD'
 */
export function oneLine(text: string): string {
  return text.replace(UNSAFE, ' ').replace(/\s+/g, ' ').trim();
}

/** Text for a page or a terminal: unsafe characters removed, line breaks and tabs kept. */
export function printable(text: string): string {
  return text.replace(UNSAFE_BUT_LINES, '');
}
