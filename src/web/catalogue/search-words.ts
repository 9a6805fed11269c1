/**
 * The words of a search and of the names it is run against, taken the same way on both sides:
 * accents and case aside, the ordinal and degree signs (`º`, `ª`, `°`) and punctuation as spaces,
 * and a number's designator kept with its number, however it is written ("N. 2", "N°2", "nº 2",
 * "No. 2", "nr 2" and "n2" are all the word `n2`).
 */

/** The words that designate a number when one follows them: n, no, nr, num. */
const DESIGNATOR = /^(?:n|no|nr|num)$/;
const DESIGNATED = /^(?:n|no|nr|num)(\d+)$/;
const NUMBER = /^\d+$/;

/** The words of a text, in order, as a search compares them. @example searchWords('Epicure Nº 2') → ['epicure', 'n2'] */
export function searchWords(text: string): string[] {
  const parts = text
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    // The ordinal signs are letters to Unicode: "nº" is the designator n, "2ª" the number 2.
    .map((part) => part.replace(/[ºª]/g, ''))
    .filter(Boolean);
  const words: string[] = [];
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    const next = parts[i + 1];
    if (DESIGNATOR.test(part) && next !== undefined && NUMBER.test(next)) {
      words.push(`n${next}`);
      i++;
    } else words.push(part.replace(DESIGNATED, 'n$1'));
  }
  return words;
}

/**
 * The terms a name is found by: its words, and a designated number also as the number alone
 * ("EPICURE N. 2" is found by `epicure 2` too, as it was before designators were joined).
 */
export function indexTerms(text: string): string[] {
  return searchWords(text).flatMap((word) => {
    const number = DESIGNATED.exec(word)?.[1];
    return number === undefined ? [word] : [word, number];
  });
}

/** A word a typo is forgiven in: letters only (a number or a code off by one digit is another product). */
export const forgiving = (word: string): boolean => /^\p{L}+$/u.test(word);

/**
 * The edits a word of the search may be away from a word of a name and still count as a near
 * match: one for five to eight letters, two from nine. Shorter words and numbers: none (a prefix
 * is all they match by).
 */
export function nearEdits(word: string): number {
  if (!forgiving(word) || word.length < 5) return 0;
  return word.length >= 9 ? 2 : 1;
}

/**
 * The edits a word may be away and still count when no near match exists: one more than near.
 * "toscni" is two edits from "toscano": found, after any name nearer to what was typed.
 */
export function farEdits(word: string): number {
  const near = nearEdits(word);
  return near === 0 ? 0 : near + 1;
}
