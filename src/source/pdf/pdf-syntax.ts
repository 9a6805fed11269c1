/**
 * The PDF's own syntax (ISO 32000-1, 7.2–7.3): white space, comments, and the objects a file is
 * made of (numbers, names, strings, arrays, dictionaries, references), read from the bytes as they
 * are, for check-structure.ts. Only what a check needs is kept of a value: a string's bytes are
 * skipped, a name's and a number's are read. Every read is bounded by the bytes it is given and by
 * a depth of nesting, so a hostile file costs at most a pass over its bytes.
 */

export type PdfValue = number | boolean | null | { name: string } | { ref: number; gen: number } | { string: true } | PdfValue[] | PdfDict;

export interface PdfDict {
  dict: Map<string, PdfValue>;
}

/** Every string read: its bytes are skipped, never kept (one object for all: reading a page's text allocates nothing a cell). */
const STRING: { string: true } = Object.freeze({ string: true });

/** A syntax error at a byte: what the checker reports as damage. */
export class PdfSyntaxError extends Error {
  readonly at: number;

  constructor(message: string, at: number) {
    super(message);
    this.at = at;
  }
}

/** Arrays and dictionaries nest no deeper than this in any real file (a list nests four or five). */
const MAX_DEPTH = 64;

const isWhite = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09 || c === 0x0c || c === 0x00;
const isDelimiter = (c: number) =>
  c === 0x28 || c === 0x29 || c === 0x3c || c === 0x3e || c === 0x5b || c === 0x5d || c === 0x7b || c === 0x7d || c === 0x2f || c === 0x25;
/** A byte that belongs to a regular token (a number, a keyword, an operator, a name's rest). */
const isRegular = (c: number) => !isWhite(c) && !isDelimiter(c);
const isDigit = (c: number) => c >= 0x30 && c <= 0x39;

/** Reads PDF syntax from `bytes`, from `pos` on, never past `end`. */
export class PdfLexer {
  readonly bytes: Buffer;
  pos: number;
  readonly end: number;

  constructor(bytes: Uint8Array, pos = 0, end = bytes.length) {
    // A Buffer's view of the same memory: its latin1 slices are native (a string built a byte at a time is not).
    this.bytes = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.pos = pos;
    this.end = end;
  }

  /** Skips white space and comments. */
  skipWhite(): void {
    const { bytes, end } = this;
    while (this.pos < end) {
      const c = bytes[this.pos]!;
      if (isWhite(c)) this.pos++;
      else if (c === 0x25) {
        while (this.pos < end && bytes[this.pos] !== 0x0a && bytes[this.pos] !== 0x0d) this.pos++;
      } else break;
    }
  }

  /** The regular token at the position (a keyword, a number, an operator), read; '' if none. */
  token(): string {
    const start = this.pos;
    this.skipToken();
    return this.bytes.toString('latin1', start, this.pos);
  }

  /** Skips the regular token at the position, returning its length (an operator need not be a string to be looked up). */
  skipToken(): number {
    const start = this.pos;
    while (this.pos < this.end && isRegular(this.bytes[this.pos]!)) this.pos++;
    return this.pos - start;
  }

  /** Whether the bytes at the position are `word`, followed by a byte that ends a token. */
  at(word: string): boolean {
    for (let i = 0; i < word.length; i++) if (this.bytes[this.pos + i] !== word.charCodeAt(i)) return false;
    const next = this.pos + word.length;
    return next >= this.end || !isRegular(this.bytes[next]!);
  }

  fail(message: string): never {
    throw new PdfSyntaxError(message, this.pos);
  }

  /** One value, references included (`12 0 R`). */
  value(depth = 0): PdfValue {
    if (depth > MAX_DEPTH) this.fail(`values nested more than ${MAX_DEPTH} deep`);
    this.skipWhite();
    if (this.pos >= this.end) this.fail('the data ends where a value should be');
    const c = this.bytes[this.pos]!;
    if (c === 0x3c && this.bytes[this.pos + 1] === 0x3c) return this.dictionary(depth);
    if (c === 0x3c) return this.hexString();
    if (c === 0x28) return this.literalString();
    if (c === 0x2f) return { name: this.name() };
    if (c === 0x5b) {
      this.pos++;
      const items: PdfValue[] = [];
      for (;;) {
        this.skipWhite();
        if (this.pos >= this.end) this.fail('an array is not closed');
        if (this.bytes[this.pos] === 0x5d) {
          this.pos++;
          return items;
        }
        items.push(this.value(depth + 1));
      }
    }
    const number = this.number();
    if (number !== null) {
      // `<n> <g> R` is a reference: looked ahead, and undone when it is two numbers.
      if (Number.isInteger(number) && number >= 0) {
        const after = this.pos;
        const gen = this.integer();
        if (gen !== null) {
          this.skipWhite();
          if (this.at('R')) {
            this.pos++;
            return { ref: number, gen };
          }
        }
        this.pos = after;
      }
      return number;
    }
    const start = this.pos;
    const word = this.token();
    if (word === '') this.fail(`an unexpected byte 0x${c.toString(16).padStart(2, '0')}`);
    if (word === 'true' || word === 'false') return word === 'true';
    if (word === 'null') return null;
    this.pos = start;
    return this.fail(`"${word.slice(0, 20)}" is not a value`);
  }

  /** A number token at the position (`12`, `-3.5`, `.25`), read; null (nothing read) when the token is not one. */
  number(): number | null {
    const { bytes, end } = this;
    const start = this.pos;
    let i = start;
    let sign = 1;
    if (bytes[i] === 0x2b || bytes[i] === 0x2d) sign = bytes[i++] === 0x2d ? -1 : 1;
    let value = 0;
    let digits = 0;
    let scale = 0;
    for (; i < end; i++) {
      const c = bytes[i]!;
      if (c >= 0x30 && c <= 0x39) {
        value = value * 10 + (c - 0x30);
        digits++;
        if (scale > 0) scale *= 10;
      } else if (c === 0x2e && scale === 0) scale = 1;
      else break;
    }
    if (digits === 0 || (i < end && isRegular(bytes[i]!))) return null;
    this.pos = i;
    return (sign * value) / (scale || 1);
  }

  /**
   * Skips one value, as `value` reads it but allocating nothing (a content stream's operands are
   * checked, never kept: a page of text has thousands).
   */
  skipValue(depth = 0): void {
    if (depth > MAX_DEPTH) this.fail(`values nested more than ${MAX_DEPTH} deep`);
    this.skipWhite();
    if (this.pos >= this.end) this.fail('the data ends where a value should be');
    const c = this.bytes[this.pos]!;
    if (c === 0x3c && this.bytes[this.pos + 1] === 0x3c) {
      this.pos += 2;
      for (;;) {
        this.skipWhite();
        if (this.pos >= this.end) this.fail('a dictionary is not closed');
        if (this.bytes[this.pos] === 0x3e && this.bytes[this.pos + 1] === 0x3e) {
          this.pos += 2;
          return;
        }
        if (this.bytes[this.pos] !== 0x2f) this.fail('a dictionary key is not a name');
        this.pos++;
        this.skipToken();
        this.skipValue(depth + 1);
      }
    }
    if (c === 0x3c) return void this.hexString();
    if (c === 0x28) return void this.literalString();
    if (c === 0x2f) {
      this.pos++;
      this.skipToken();
      return;
    }
    if (c === 0x5b) {
      this.pos++;
      for (;;) {
        this.skipWhite();
        if (this.pos >= this.end) this.fail('an array is not closed');
        if (this.bytes[this.pos] === 0x5d) {
          this.pos++;
          return;
        }
        this.skipValue(depth + 1);
      }
    }
    if (this.number() === null) this.fail(`an unexpected byte 0x${c.toString(16).padStart(2, '0')}`);
  }

  dictionary(depth = 0): PdfDict {
    this.pos += 2;
    const dict = new Map<string, PdfValue>();
    for (;;) {
      this.skipWhite();
      if (this.pos >= this.end) this.fail('a dictionary is not closed');
      if (this.bytes[this.pos] === 0x3e && this.bytes[this.pos + 1] === 0x3e) {
        this.pos += 2;
        return { dict };
      }
      if (this.bytes[this.pos] !== 0x2f) this.fail('a dictionary key is not a name');
      const key = this.name();
      dict.set(key, this.value(depth + 1));
    }
  }

  name(): string {
    this.pos++;
    return this.token();
  }

  hexString(): { string: true } {
    this.pos++;
    while (this.pos < this.end && this.bytes[this.pos] !== 0x3e) {
      const c = this.bytes[this.pos]!;
      const hex = (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
      if (!isWhite(c) && !hex) this.fail('a hexadecimal string holds a byte that is not a digit');
      this.pos++;
    }
    if (this.pos >= this.end) this.fail('a hexadecimal string is not closed');
    this.pos++;
    return STRING;
  }

  /** A literal string: balanced parentheses, a backslash escaping the byte after it. */
  literalString(): { string: true } {
    this.pos++;
    let depth = 1;
    while (this.pos < this.end) {
      const c = this.bytes[this.pos++]!;
      if (c === 0x5c) this.pos++;
      else if (c === 0x28) depth++;
      else if (c === 0x29 && --depth === 0) return STRING;
    }
    return this.fail('a string is not closed');
  }

  /** An unsigned integer token at the position (after white space), or null. */
  integer(): number | null {
    this.skipWhite();
    const start = this.pos;
    while (this.pos < this.end && isDigit(this.bytes[this.pos]!)) this.pos++;
    if (this.pos === start || (this.pos < this.end && isRegular(this.bytes[this.pos]!))) {
      this.pos = start;
      return null;
    }
    let value = 0;
    for (let i = start; i < this.pos; i++) value = value * 10 + (this.bytes[i]! - 0x30);
    return value;
  }
}

export function latin1(bytes: Uint8Array, start: number, end: number): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1', start, Math.min(end, bytes.length));
}

/** A dictionary's entry as a name (`/FlateDecode`), or null. */
export function nameOf(value: PdfValue | undefined): string | null {
  return value !== null && typeof value === 'object' && 'name' in value ? value.name : null;
}

export function isDict(value: PdfValue | undefined): value is PdfDict {
  return value !== null && typeof value === 'object' && 'dict' in value;
}

export function isRef(value: PdfValue | undefined): value is { ref: number; gen: number } {
  return value !== null && typeof value === 'object' && 'ref' in value;
}
