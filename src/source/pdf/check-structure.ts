import { inflateSync } from 'node:zlib';
import { contentStreamFault } from './check-content-stream.ts';
import { isDict, isRef, latin1, nameOf, PdfLexer, PdfSyntaxError, type PdfDict, type PdfValue } from './pdf-syntax.ts';

/** What the structure check counts against, from READER_LIMITS. */
export interface StructureLimits {
  xrefSectionsPerDocument: number;
  xrefEntriesPerDocument: number;
  inflatedBytesPerStream: number;
  inflatedBytesPerDocument: number;
}

/** Why a document is refused: damaged (`damaged`), or past a limit of work (`too_large`), with what and where. */
export interface StructureFault {
  reason: 'damaged' | 'too_large';
  detail: string;
}

/** How the newest cross-reference section names an object: not at all, at a byte, in an object stream, free. */
const UNNAMED = 0;
const AT_OFFSET = 1;
const IN_STREAM = 2;
const FREE = 3;

/**
 * Where each object is, as the newest section that names it says: typed arrays by object number
 * (a list names tens of thousands of objects: one JavaScript object each cost the check more than
 * reading them), grown as numbers come, never past the entries a document may hold.
 */
class ObjectTable {
  kind = new Uint8Array(1024);
  /** The object's byte offset, or the number of the object stream holding it. */
  place = new Float64Array(1024);
  /** Its index in that object stream. */
  index = new Int32Array(1024);
  /** The highest object number named, plus one. */
  size = 0;
  private readonly limit: number;

  constructor(limit: number) {
    this.limit = limit;
  }

  /** Names an object unless a newer section did. */
  name(number: number, kind: number, place: number, index = 0): void {
    if (number >= this.limit)
      throw new Fault({
        reason: 'too_large',
        detail: `it numbers an object ${number}, past the ${this.limit} objects a document may hold: no price list does`,
      });
    if (number >= this.kind.length) this.grow(number + 1);
    if (this.kind[number] !== UNNAMED) return;
    this.kind[number] = kind;
    this.place[number] = place;
    this.index[number] = index;
    this.size = Math.max(this.size, number + 1);
  }

  offsetOf(number: number): number | null {
    return number < this.size && this.kind[number] === AT_OFFSET ? this.place[number]! : null;
  }

  private grow(needed: number): void {
    let length = this.kind.length;
    while (length < needed) length *= 2;
    const kind = new Uint8Array(length);
    kind.set(this.kind);
    const place = new Float64Array(length);
    place.set(this.place);
    const index = new Int32Array(length);
    index.set(this.index);
    [this.kind, this.place, this.index] = [kind, place, index];
  }
}

interface StreamObject {
  dict: PdfDict;
  /** The stream's bytes as stored (a view of the file's: nothing is copied). */
  raw: Uint8Array;
  /** Whether the check decodes it (no filter, or Flate alone): decoded again where its content is read. */
  decodable: boolean;
}

/**
 * Checks what a reader can check of a PDF before trusting what it shows, as a reader that repairs
 * silently (PDFium does) would not: a document that fails any of these is damaged, never read as
 * whole. It checks that
 * - the file ends with its `startxref` and every cross-reference section it leads to (tables, streams,
 *   `/Prev` and `/XRefStm` chains) reads;
 * - every object the sections name begins where they say (no repair needed: a byte added, lost or
 *   changed before it moves or breaks it);
 * - every stream ends where its `/Length` says, with `endstream`;
 * - every Flate stream decodes completely, its Adler-32 checksum right;
 * - every object said to be in an object stream is the one its list names there;
 * - every page's content stored without a checksum parses to its end (check-content-stream.ts).
 * Work is bounded by counts (sections, entries, bytes inflated), never by time: past a count, the
 * document is refused as too large. Returns the first fault found, or null.
 */
export function checkPdfStructure(bytes: Uint8Array, limits: StructureLimits): StructureFault | null {
  try {
    return new StructureCheck(bytes, limits).run();
  } catch (error) {
    if (error instanceof PdfSyntaxError) return { reason: 'damaged', detail: `${error.message} (byte ${error.at})` };
    if (error instanceof Fault) return error.fault;
    throw error;
  }
}

class Fault extends Error {
  readonly fault: StructureFault;

  constructor(fault: StructureFault) {
    super(fault.detail);
    this.fault = fault;
  }
}

/**
 * zlib's largest output chunk when a stream is unpacked to be checked; each chunk is sized to hold
 * the stream whole as a page's usually unpacks (eight times its bytes), so unpacking one is one
 * allocation, not dozens of 16 KB ones copied together: a document's streams are unpacked and let
 * go by the hundred, and many small pieces leave the command's memory fragmented.
 */
const CHUNK = 1024 * 1024;

const damaged = (detail: string) => new Fault({ reason: 'damaged', detail });

class StructureCheck {
  private readonly bytes: Uint8Array;
  private readonly limits: StructureLimits;
  /** Each object's newest location (the first section read names it first). */
  private readonly where: ObjectTable;
  private readonly streams = new Map<number, StreamObject>();
  private readonly values = new Map<number, PdfValue>();
  private inflated = 0;
  private sections = 0;
  private entries = 0;

  constructor(bytes: Uint8Array, limits: StructureLimits) {
    this.bytes = bytes;
    this.limits = limits;
    this.where = new ObjectTable(limits.xrefEntriesPerDocument);
  }

  run(): StructureFault | null {
    if (latin1(this.bytes, 0, Math.min(1024, this.bytes.length)).indexOf('%PDF-') < 0)
      throw damaged('it does not begin as a PDF (no %PDF- header)');
    this.readSections(this.startXref());
    const { where } = this;
    for (let number = 0; number < where.size; number++) if (where.kind[number] === AT_OFFSET) this.readObject(number, where.place[number]!);
    for (let number = 0; number < where.size; number++)
      if (where.kind[number] === IN_STREAM) this.objectInStream(number, where.place[number]!, where.index[number]!);
    this.objectStreams.clear();
    this.checkStreams();
    return null;
  }

  /** The offset `startxref` gives, from the file's last kilobyte: a file cut short has none. */
  private startXref(): number {
    const tail = latin1(this.bytes, Math.max(0, this.bytes.length - 1024), this.bytes.length);
    const match = /startxref\s+(\d+)\s+%%EOF\s*$/.exec(tail);
    if (!match) throw damaged('it does not end as a PDF ends (startxref, %%EOF): the file is cut short or has bytes added after its end');
    return Number(match[1]);
  }

  /** Reads every cross-reference section from the newest, following /XRefStm and /Prev, each once. */
  private readSections(first: number): void {
    const pending = [first];
    const seen = new Set<number>();
    while (pending.length > 0) {
      const offset = pending.shift()!;
      if (seen.has(offset)) throw damaged(`its cross-reference sections loop (byte ${offset} is named twice)`);
      seen.add(offset);
      if (++this.sections > this.limits.xrefSectionsPerDocument)
        throw new Fault({
          reason: 'too_large',
          detail: `it has more than ${this.limits.xrefSectionsPerDocument} cross-reference sections (updates): no price list does`,
        });
      if (offset >= this.bytes.length) throw damaged(`a cross-reference section is said to be at byte ${offset}, past the end of the file`);
      const lexer = new PdfLexer(this.bytes, offset);
      const trailer = lexer.at('xref') ? this.xrefTable(lexer) : this.xrefStream(offset);
      const hybrid = trailer.dict.get('XRefStm');
      if (typeof hybrid === 'number') pending.unshift(hybrid);
      const previous = trailer.dict.get('Prev');
      if (typeof previous === 'number') pending.push(previous);
    }
  }

  /** Every entry read counts, free or not, in every section: the work of reading them is bounded. */
  private countEntry(): void {
    if (++this.entries > this.limits.xrefEntriesPerDocument)
      throw new Fault({
        reason: 'too_large',
        detail: `its cross-reference sections hold more than ${this.limits.xrefEntriesPerDocument} entries: no price list does`,
      });
  }

  /** A classic table: subsections of 20-byte entries, then its trailer. */
  private xrefTable(lexer: PdfLexer): PdfDict {
    lexer.pos += 4;
    for (;;) {
      lexer.skipWhite();
      if (lexer.at('trailer')) {
        lexer.pos += 7;
        lexer.skipWhite();
        if (!(this.bytes[lexer.pos] === 0x3c && this.bytes[lexer.pos + 1] === 0x3c)) throw damaged('its trailer is not a dictionary');
        return lexer.dictionary();
      }
      const start = lexer.integer();
      const count = lexer.integer();
      if (start === null || count === null) throw damaged(`a cross-reference table does not read (byte ${lexer.pos})`);
      lexer.skipWhite();
      for (let i = 0; i < count; i++) {
        this.countEntry();
        const offset = xrefEntry(this.bytes, lexer.pos);
        if (offset === null) throw damaged(`entry ${start + i} of a cross-reference table does not read (byte ${lexer.pos})`);
        this.where.name(start + i, offset >= 0 ? AT_OFFSET : FREE, offset);
        lexer.pos += 20;
      }
    }
  }

  /** A cross-reference stream (PDF 1.5): an object whose decoded data holds the entries, /W wide. */
  private xrefStream(offset: number): PdfDict {
    const stream = this.streamAt(offset, null);
    const { dict } = stream;
    if (nameOf(dict.dict.get('Type')) !== 'XRef') throw damaged(`no cross-reference section at byte ${offset}, where one is said to be`);
    const decoded = this.decoded(stream, offset);
    if (!decoded) throw damaged(`the cross-reference stream at byte ${offset} is not compressed as the check can read`);
    const widths = dict.dict.get('W');
    const size = dict.dict.get('Size');
    if (
      !Array.isArray(widths) ||
      widths.length !== 3 ||
      !widths.every((w) => typeof w === 'number' && w >= 0 && w <= 8) ||
      typeof size !== 'number'
    )
      throw damaged(`the cross-reference stream at byte ${offset} has no valid /W or /Size`);
    const [w0, w1, w2] = widths as number[];
    const rowWidth = w0! + w1! + w2!;
    const index = dict.dict.get('Index') ?? [0, size];
    if (!Array.isArray(index) || index.length % 2 !== 0 || !index.every((n) => typeof n === 'number'))
      throw damaged(`the cross-reference stream at byte ${offset} has an invalid /Index`);
    const data = unpredict(decoded, dict, rowWidth, offset);
    let row = 0;
    for (let i = 0; i < index.length; i += 2) {
      const [start, count] = [index[i] as number, index[i + 1] as number];
      for (let k = 0; k < count; k++, row++) {
        this.countEntry();
        if ((row + 1) * rowWidth > data.length)
          throw damaged(`the cross-reference stream at byte ${offset} holds fewer entries than it says`);
        const field = (from: number, width: number) => {
          let value = 0;
          for (let b = 0; b < width; b++) value = value * 256 + data[row * rowWidth + from + b]!;
          return value;
        };
        const type = w0 === 0 ? 1 : field(0, w0!);
        const second = field(w0!, w1!);
        const third = field(w0! + w1!, w2!);
        if (type === 1) this.where.name(start + k, AT_OFFSET, second);
        else if (type === 2) this.where.name(start + k, IN_STREAM, second, third);
        else if (type === 0) this.where.name(start + k, FREE, 0);
        else throw damaged(`entry ${start + k} of the cross-reference stream at byte ${offset} has type ${type}`);
      }
    }
    return dict;
  }

  /** Pages are kept for their content's check; every other object is parsed and let go. */
  private keep(number: number, value: PdfValue): void {
    if (isDict(value) && nameOf(value.dict.get('Type')) === 'Page') this.values.set(number, value);
  }

  /** The object the table names at `offset`: it must begin there, and its stream end where /Length says. */
  private readObject(number: number, offset: number): void {
    const lexer = new PdfLexer(this.bytes, offset);
    const named = lexer.integer();
    const generation = lexer.integer();
    lexer.skipWhite();
    if (named !== number || generation === null || !lexer.at('obj'))
      throw damaged(
        `object ${number} is not where its cross-reference entry says (byte ${offset}): the file was changed after it was written, and a reader would have to repair it`,
      );
    lexer.pos += 3;
    const value = lexer.value();
    this.keep(number, value);
    lexer.skipWhite();
    if (lexer.at('stream')) {
      if (!isDict(value)) throw damaged(`object ${number} has a stream but no dictionary`);
      this.streams.set(number, this.streamData(number, value, lexer));
    } else if (!lexer.at('endobj')) throw damaged(`object ${number} does not end with endobj (byte ${lexer.pos})`);
  }

  /** The stream object at `offset` (a cross-reference stream, read before the objects are known). */
  private streamAt(offset: number, number: number | null): StreamObject {
    const lexer = new PdfLexer(this.bytes, offset);
    const named = lexer.integer();
    lexer.integer();
    lexer.skipWhite();
    if (named === null || !lexer.at('obj'))
      throw damaged(`no cross-reference section at byte ${offset}, where the file says one is: the file was changed after it was written`);
    lexer.pos += 3;
    const value = lexer.value();
    lexer.skipWhite();
    if (!isDict(value) || !lexer.at('stream')) throw damaged(`the object at byte ${offset} is not a stream`);
    return this.streamData(number ?? named, value, lexer);
  }

  private streamData(number: number, dict: PdfDict, lexer: PdfLexer): StreamObject {
    lexer.pos += 6;
    if (this.bytes[lexer.pos] === 0x0d) lexer.pos++;
    if (this.bytes[lexer.pos] !== 0x0a) throw damaged(`object ${number}: its stream keyword is not followed by a line end`);
    const start = lexer.pos + 1;
    const length = this.integerValue(dict.dict.get('Length'), number);
    const end = start + length;
    const after = new PdfLexer(this.bytes, end);
    after.skipWhite();
    if (end > this.bytes.length || !after.at('endstream'))
      throw damaged(`object ${number}: its stream does not end where its /Length (${length}) says`);
    const filter = dict.dict.get('Filter');
    const first = Array.isArray(filter) ? (filter.length === 1 ? nameOf(filter[0]) : null) : nameOf(filter);
    // Decoded (and its checksum checked) once, after every object is read: checkStreams.
    return { dict, raw: this.bytes.subarray(start, end), decodable: filter === undefined || first === 'FlateDecode' || first === 'Fl' };
  }

  /** A direct integer, or one an indirect reference names (a /Length written after its stream). */
  private integerValue(value: PdfValue | undefined, number: number): number {
    if (typeof value === 'number' && Number.isInteger(value) && value >= 0) return value;
    if (isRef(value)) {
      const offset = this.where.offsetOf(value.ref);
      if (offset !== null) {
        const lexer = new PdfLexer(this.bytes, offset);
        if (lexer.integer() === value.ref && lexer.integer() !== null) {
          lexer.skipWhite();
          if (lexer.at('obj')) {
            lexer.pos += 3;
            const length = lexer.value();
            if (typeof length === 'number' && Number.isInteger(length) && length >= 0) return length;
          }
        }
      }
    }
    throw damaged(`object ${number}: its stream has no valid /Length`);
  }

  /**
   * A stream's data decoded: as stored without a filter, inflated whole for Flate with its checksum
   * checked; null for other filters (images), left as they are. Each inflation counts against the
   * document's bytes inflated.
   */
  private decoded({ dict, raw, decodable }: StreamObject, number: number): Uint8Array | null {
    if (!decodable) return null;
    if (dict.dict.get('Filter') === undefined) return raw;
    const room = Math.min(this.limits.inflatedBytesPerStream, this.limits.inflatedBytesPerDocument - this.inflated);
    let decoded: Buffer;
    try {
      decoded = inflateSync(raw, { maxOutputLength: Math.max(1, room), chunkSize: Math.min(CHUNK, Math.max(16 * 1024, raw.length * 8)) });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ERR_BUFFER_TOO_LARGE' || error instanceof RangeError)
        throw new Fault({
          reason: 'too_large',
          detail:
            room < this.limits.inflatedBytesPerStream
              ? `its compressed streams unpack to more than ${this.limits.inflatedBytesPerDocument / 1048576} MB in all: no price list does`
              : `object ${number}: its stream unpacks to more than ${this.limits.inflatedBytesPerStream / 1048576} MB: no price list does`,
        });
      const message = (error as Error).message;
      if (/incorrect data check/.test(message)) throw damaged(`object ${number}: its compressed stream fails its checksum (Adler-32)`);
      if (/unexpected end/.test(message)) throw damaged(`object ${number}: its compressed stream is cut short`);
      throw damaged(`object ${number}: its compressed stream does not decode (${message})`);
    }
    this.inflated += decoded.length;
    this.checked.add(raw.byteOffset);
    return decoded;
  }

  /** The streams decoded already (cross-reference and object streams), by where their data begins. */
  private readonly checked = new Set<number>();

  /** An object of an object stream: the stream must be there, and name this object at this index. */
  private objectInStream(number: number, stream: number, index: number): void {
    const container = this.streams.get(stream);
    const held = container ? this.objectStream(stream, container) : null;
    if (!held) throw damaged(`object ${number} is said to be in object ${stream}, which is no object stream`);
    if (index >= held.numbers.length)
      throw damaged(`object ${number} is said to be object ${index} of object stream ${stream}, which does not hold it`);
    if (held.numbers[index] !== number)
      throw damaged(`object stream ${stream} holds object ${held.numbers[index]} where object ${number} is said to be`);
    // Its bytes are the checked stream's (Adler-32): only a page needs reading, for its content (a
    // list's object streams hold tens of thousands of structure elements).
    if (!held.pages.has(index)) return;
    const start = held.first + held.offsets[index]!;
    const end = index + 1 < held.offsets.length ? held.first + held.offsets[index + 1]! : held.data.length;
    if (start > held.data.length) throw damaged(`object stream ${stream} places object ${number} past its end`);
    this.keep(number, new PdfLexer(held.data, start, end).value());
  }

  /**
   * An object stream decoded once, its list of objects read once, kept while its objects are read
   * (a list's hold a few hundred KB); null when the object is no object stream.
   */
  private readonly objectStreams = new Map<
    number,
    { data: Buffer; first: number; numbers: number[]; offsets: number[]; pages: Set<number> } | null
  >();

  private objectStream(number: number, stream: StreamObject) {
    if (this.objectStreams.has(number)) return this.objectStreams.get(number)!;
    const count = stream.dict.dict.get('N');
    const first = stream.dict.dict.get('First');
    const data = nameOf(stream.dict.dict.get('Type')) === 'ObjStm' ? this.decoded(stream, number) : null;
    let held = null;
    if (data && typeof count === 'number' && typeof first === 'number' && first <= data.length) {
      const header = new PdfLexer(data, 0, first);
      const numbers: number[] = [];
      const offsets: number[] = [];
      for (let i = 0; i < count; i++) {
        const named = header.integer();
        const at = header.integer();
        if (named === null || at === null) throw damaged(`object stream ${number}: its list of objects does not read`);
        numbers.push(named);
        offsets.push(at);
      }
      const buffer = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
      held = { data: buffer, first, numbers, offsets, pages: pageIndices(buffer, first, offsets) };
    }
    this.objectStreams.set(number, held);
    return held;
  }

  /**
   * Every stream decoded once, its checksum checked, and let go (a document's streams are never all
   * held at once); a page's content is parsed to its end as it is decoded (a page of several
   * content streams, as one).
   */
  private checkStreams(): void {
    const contentOf = new Map<number, number>();
    const several: [number, { ref: number }[]][] = [];
    for (const [page, value] of this.values) {
      const contents = (value as PdfDict).dict.get('Contents');
      const refs = isRef(contents) ? [contents] : Array.isArray(contents) ? contents.filter(isRef) : [];
      for (const ref of refs)
        if (!this.streams.has(ref.ref))
          throw damaged(`page object ${page}: its content, object ${ref.ref}, is not a stream the file holds`);
      if (refs.length === 1) contentOf.set(refs[0]!.ref, page);
      else if (refs.length > 1) several.push([page, refs]);
    }
    for (const [number, stream] of this.streams) {
      const page = contentOf.get(number);
      if (page === undefined && this.checked.has(stream.raw.byteOffset)) continue;
      const decoded = this.decoded(stream, number);
      // A compressed content stream whose checksum held is as its writer wrote it; one with no
      // checksum (stored plain) is parsed to its end. One with a filter the check does not decode
      // (none is seen in a list) is left unchecked.
      if (page !== undefined && decoded && !isCompressed(stream)) this.checkContent(page, decoded);
    }
    for (const [page, refs] of several) {
      if (refs.every((ref) => isCompressed(this.streams.get(ref.ref)!))) continue;
      const parts = refs.map((ref) => this.decoded(this.streams.get(ref.ref)!, ref.ref));
      if (parts.every((part) => part !== null)) this.checkContent(page, Buffer.concat(parts as Uint8Array[]));
    }
  }

  private checkContent(page: number, content: Uint8Array): void {
    const fault = contentStreamFault(content);
    if (fault) throw damaged(`the content of page object ${page} does not parse: ${fault}`);
  }
}

const PAGE = Buffer.from('/Page', 'latin1');

/**
 * Which objects of an object stream may be pages: those whose bytes hold `/Page` (found by the
 * buffer's own search, each place mapped to its object by the stream's list of offsets).
 */
function pageIndices(data: Buffer, first: number, offsets: number[]): Set<number> {
  const pages = new Set<number>();
  for (let at = data.indexOf(PAGE, first); at >= 0; at = data.indexOf(PAGE, at + PAGE.length)) {
    // The last object beginning at or before `at`.
    let low = 0;
    let high = offsets.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (first + offsets[middle]! <= at) low = middle;
      else high = middle - 1;
    }
    pages.add(low);
  }
  return pages;
}

/**
 * A classic cross-reference entry at `at` (`0000012345 00000 n\r\n`: ten digits, a space, five
 * digits, a space, n or f, two bytes of line end): the offset of an object in use, -1 for a free
 * one, null when the 20 bytes are no entry.
 */
function xrefEntry(bytes: Uint8Array, at: number): number | null {
  if (at + 20 > bytes.length || bytes[at + 10] !== 0x20 || bytes[at + 16] !== 0x20) return null;
  let offset = 0;
  for (let i = 0; i < 10; i++) {
    const c = bytes[at + i]! - 0x30;
    if (c < 0 || c > 9) return null;
    offset = offset * 10 + c;
  }
  for (let i = 11; i < 16; i++) if (bytes[at + i]! < 0x30 || bytes[at + i]! > 0x39) return null;
  const [a, b] = [bytes[at + 18], bytes[at + 19]];
  const eol = (a === 0x0d && b === 0x0a) || (a === 0x20 && (b === 0x0d || b === 0x0a));
  if (!eol) return null;
  return bytes[at + 17] === 0x6e ? offset : bytes[at + 17] === 0x66 ? -1 : null;
}

/** Whether a stream is stored compressed (its checksum, checked when it is decoded, covers every byte). */
const isCompressed = (stream: StreamObject) => stream.dict.dict.get('Filter') !== undefined;

/** Undoes a PNG predictor (/DecodeParms /Predictor 10–15), as cross-reference streams use: rows of `columns` bytes. */
function unpredict(data: Uint8Array, dict: PdfDict, rowWidth: number, offset: number): Uint8Array {
  const params = dict.dict.get('DecodeParms');
  const predictor = isDict(params) ? params.dict.get('Predictor') : undefined;
  if (predictor === undefined || predictor === 1) return data;
  if (typeof predictor !== 'number' || predictor < 10)
    throw damaged(`the cross-reference stream at byte ${offset} uses predictor ${String(predictor)}, which no cross-reference stream uses`);
  const columnsValue = isDict(params) ? params.dict.get('Columns') : undefined;
  const columns = typeof columnsValue === 'number' ? columnsValue : rowWidth;
  const rows = Math.floor(data.length / (columns + 1));
  const out = new Uint8Array(rows * columns);
  for (let r = 0; r < rows; r++) {
    const type = data[r * (columns + 1)]!;
    for (let c = 0; c < columns; c++) {
      const raw = data[r * (columns + 1) + 1 + c]!;
      const up = r > 0 ? out[(r - 1) * columns + c]! : 0;
      // Cross-reference streams use 2 (Up); 0 (None) is also seen. Others are undone as the PNG specification says.
      const left = c > 0 ? out[r * columns + c - 1]! : 0;
      const upLeft = r > 0 && c > 0 ? out[(r - 1) * columns + c - 1]! : 0;
      let value: number;
      if (type === 0) value = raw;
      else if (type === 1) value = raw + left;
      else if (type === 2) value = raw + up;
      else if (type === 3) value = raw + ((left + up) >> 1);
      else if (type === 4) {
        const p = left + up - upLeft;
        const [pa, pb, pc] = [Math.abs(p - left), Math.abs(p - up), Math.abs(p - upLeft)];
        value = raw + (pa <= pb && pa <= pc ? left : pb <= pc ? up : upLeft);
      } else throw damaged(`the cross-reference stream at byte ${offset} has a row of PNG filter type ${type}`);
      out[r * columns + c] = value & 0xff;
    }
  }
  return out;
}
