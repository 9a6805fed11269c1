import { PdfLexer, PdfSyntaxError } from './pdf-syntax.ts';

/**
 * Every operator a content stream may hold (ISO 32000-1, Annex A), with how many operands it takes
 * (-1: a variable number, as `SC`, `scn`, `d0`'s colour operands vary). A damaged stream shows
 * itself as an operator no PDF has, a wrong count of operands, or a stream that ends inside a
 * string, an array or a text object.
 */
const OPERATORS: Record<string, number> = {
  b: 0,
  B: 0,
  'b*': 0,
  'B*': 0,
  BDC: 2,
  BI: 0,
  BMC: 1,
  BT: 0,
  BX: 0,
  c: 6,
  cm: 6,
  CS: 1,
  cs: 1,
  d: 2,
  d0: 2,
  d1: 6,
  Do: 1,
  DP: 2,
  EI: 0,
  EMC: 0,
  ET: 0,
  EX: 0,
  f: 0,
  F: 0,
  'f*': 0,
  G: 1,
  g: 1,
  gs: 1,
  h: 0,
  i: 1,
  ID: 0,
  j: 1,
  J: 1,
  K: 4,
  k: 4,
  l: 2,
  m: 2,
  M: 1,
  MP: 1,
  n: 0,
  q: 0,
  Q: 0,
  re: 4,
  RG: 3,
  rg: 3,
  ri: 1,
  s: 0,
  S: 0,
  SC: -1,
  sc: -1,
  SCN: -1,
  scn: -1,
  sh: 1,
  'T*': 0,
  Tc: 1,
  Td: 2,
  TD: 2,
  Tf: 2,
  Tj: 1,
  TJ: 1,
  TL: 1,
  Tm: 6,
  Tr: 1,
  Ts: 1,
  Tw: 1,
  Tz: 1,
  v: 4,
  w: 1,
  W: 0,
  'W*': 0,
  y: 4,
  "'": 1,
  '"': 3,
};

/** Operands at most before an operator (a `scn` of a DeviceN space takes 32 components and a name). */
const MAX_OPERANDS = 64;

/**
 * Checks that a page's content stream (decoded) parses to its end: every token a value or a known
 * operator with its count of operands, text objects (BT … ET) and saved states (q … Q) closed,
 * nothing cut off inside a string, array or dictionary. Returns what is wrong, or null.
 */
export function contentStreamFault(content: Uint8Array): string | null {
  const lexer = new PdfLexer(content);
  let operands = 0;
  let inText = false;
  let saved = 0;
  try {
    for (;;) {
      lexer.skipWhite();
      if (lexer.pos >= lexer.end) break;
      const c = content[lexer.pos]!;
      // Operands: anything that starts a value (a keyword such as `true` is read as one below).
      if (c === 0x2f || c === 0x28 || c === 0x3c || c === 0x5b || c === 0x2b || c === 0x2d || c === 0x2e || (c >= 0x30 && c <= 0x39)) {
        lexer.skipValue();
        if (++operands > MAX_OPERANDS) return `more than ${MAX_OPERANDS} operands before an operator, at byte ${lexer.pos}`;
        continue;
      }
      const at = lexer.pos;
      const word = lexer.token();
      if (word === '') return `a byte that starts nothing (0x${c.toString(16).padStart(2, '0')}) at byte ${at}`;
      if (word === 'true' || word === 'false' || word === 'null') {
        operands++;
        continue;
      }
      // Own keys only: a word such as "toString" is no operator.
      const expected = Object.hasOwn(OPERATORS, word) ? OPERATORS[word] : undefined;
      if (expected === undefined) return `an operator no PDF has (${JSON.stringify(word.slice(0, 12))}) at byte ${at}`;
      if (expected >= 0 && operands !== expected) return `"${word}" with ${operands} operand(s) where it takes ${expected}, at byte ${at}`;
      operands = 0;
      if (word === 'BT') {
        if (inText) return `a text object begun inside another (BT in BT) at byte ${at}`;
        inText = true;
      } else if (word === 'ET') {
        if (!inText) return `a text object ended that was not begun (ET) at byte ${at}`;
        inText = false;
      } else if (word === 'q') saved++;
      else if (word === 'Q') {
        if (--saved < 0) return `a graphics state restored that was not saved (Q) at byte ${at}`;
      } else if (word === 'BI') {
        // An inline image: its dictionary, then its data up to "EI" (the data is not PDF syntax).
        const data = indexOfWord(content, 'ID', lexer.pos);
        const end = data < 0 ? -1 : indexOfWord(content, 'EI', data + 3);
        if (end < 0) return `an inline image with no end (BI without ID … EI) at byte ${at}`;
        lexer.pos = end + 2;
      }
    }
  } catch (error) {
    if (error instanceof PdfSyntaxError) return `${error.message} at byte ${error.at}`;
    throw error;
  }
  if (operands > 0) return `it ends with ${operands} operand(s) and no operator`;
  if (inText) return 'it ends inside a text object (BT with no ET)';
  return null;
}

/** The first `word` at or after `from` standing alone (white space before and after). */
function indexOfWord(bytes: Uint8Array, word: string, from: number): number {
  const a = word.charCodeAt(0);
  const b = word.charCodeAt(1);
  const white = (c: number | undefined) => c === undefined || c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
  for (let i = from; i + 1 < bytes.length; i++)
    if (bytes[i] === a && bytes[i + 1] === b && white(bytes[i - 1]) && white(bytes[i + 2])) return i;
  return -1;
}
