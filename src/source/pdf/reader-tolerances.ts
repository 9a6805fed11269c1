/**
 * Every layout tolerance of the PDF reader, in one place (as pdfplumber and tabula name their
 * `x_tolerance`, `y_tolerance` and join distances). Each is a share of the text height (the font
 * size), so the reader works the same on a list printed at 7.5 pt and one at 11 pt. Documented in
 * docs/source-format.md; change them here only, and run the property test (test/integration/
 * pdf-tables.property.test.ts), which draws tables at random geometry.
 */
export const TOLERANCES = {
  /** Runs whose baselines are this close share a line (a spreadsheet aligns each cell on its own). */
  sameLine: 0.4,
  /** A gap wider than this inside a cell reads as a space. */
  wordGap: 0.15,
  /** Header runs closer than this are one header cell ("€/kg" + "conv.le"). */
  headerJoin: 0.34,
  /** A vertical strip at least this wide that no body run crosses separates two columns. */
  columnGap: 0.3,
  /** A line with no price cell is part of the nearest row when it lies within this distance of it. */
  wrapReach: 1.3,
  /**
   * A line between two rows is refused as ambiguous when its distance to the nearer row is more
   * than this share of its distance to the farther one: the reader never guesses whose name it is.
   */
  wrapAmbiguity: 0.6,
  /** Within one run, the pen jumping forwards more than this starts a new run (two cells written by one operation). */
  runBreakForward: 0.6,
  /** Within one run, the pen moving back or to another baseline by more than this starts a new run. */
  runBreakBack: 0.2,
} as const;

export type Tolerances = typeof TOLERANCES;

/**
 * What the reader accepts of one document, so that a hostile or broken file from the authority's
 * site fails with a clear error in bounded time and memory: the command and its readers stay under
 * 400 MB whatever the document (docs/source-format.md, "Limits"). A real list has at most 4,500
 * characters, 390 objects and 311 text runs a page, 14,400 runs and 47 tables in all (the 47-page
 * cigar list), and reads in well under a second; every step after PDFium's is linear in the runs.
 * Each limit counts what the document makes the reader do (objects, characters, runs, pages, rows,
 * tables, heap, the reader's own processor time), never the clock of a machine that may be busy:
 * the one clock here, `deadlineMs`, is a backstop minutes away from any real list.
 */
export const READER_LIMITS = {
  /** Objects on one page (text, lines, images: PDFium counts them before it lays the text out). */
  objectsPerPage: 100_000,
  /** Characters on one page (PDFium counts them before any is read). */
  charsPerPage: 200_000,
  /** Text runs on one page. */
  runsPerPage: 100_000,
  /**
   * Pages of one document. The longest real list has 47; a page tree can name one page a million
   * times in a kilobyte (a DAG, not a loop), and is refused before any page is read.
   */
  pagesPerDocument: 2_000,
  /** Characters of one document, all pages (the longest real list has about 200,000). */
  charsPerDocument: 4_000_000,
  /** Objects of one document, all pages (the longest real list has about 18,000). */
  objectsPerDocument: 2_000_000,
  /** Text runs of one document, all pages (the longest real list has 14,400): what the command holds of it is in proportion. */
  runsPerDocument: 300_000,
  /** Tables of one document (a list has one a page, 47 at most): a header on every line is refused at once. */
  tablesPerDocument: 500,
  /** Problems kept of one document, with their page and row; beyond, they are only counted. */
  problemsPerDocument: 1_000,
  /**
   * Cross-reference sections of one document (a list has two or three: a table, its stream, an
   * update); 100,000 incremental updates would take PDFium seconds to open, and are refused unread.
   */
  xrefSectionsPerDocument: 1_000,
  /** Cross-reference entries of one document, all sections (the longest real list has 32,030). */
  xrefEntriesPerDocument: 1_000_000,
  /** Bytes one compressed stream may unpack to when the structure is checked (the real lists' largest: a few MB). */
  inflatedBytesPerStream: 48 * 1024 * 1024,
  /** Bytes all of a document's compressed streams may unpack to, counted each time one is unpacked. */
  inflatedBytesPerDocument: 256 * 1024 * 1024,
  /**
   * Rows of one document, all tables (the longest real list has 2,821; ten times that and more is no
   * price list): counted as the pages are walked, so a document of more is refused as soon as it
   * passes this, and what the command holds of a document stays bounded (docs/source-format.md, "Limits").
   */
  rowsPerDocument: 28_500,
  /**
   * Milliseconds of a reader's own processor time to open the document and count its pages (a real
   * list takes a few): past it the reader is stopped. Processor time, not the clock's: what else the
   * machine runs does not inflate it.
   */
  openCpuMs: 3_000,
  /**
   * Milliseconds of a reader's own processor time for its share of one document's pages (the 47-page
   * list takes about 300 ms): past it the reader is stopped and the document refused.
   */
  readerCpuMs: 20_000,
  /**
   * The backstop of the clock, for everything done for the document from when its first reader
   * begins it: reading it, finding its tables, interpreting them. Far from any real list (which
   * reads in well under a second idle, and under ten seconds with every core busy twelve times
   * over); when it passes, the machine did not give the reader time, and the message says so.
   */
  deadlineMs: 120_000,
  /**
   * Bytes of PDFium's heap in one reader. Every real list reads within the heap PDFium starts with
   * (18 MB), the file itself never in it (it is read by blocks); a stream that unpacks beyond this is refused.
   */
  heapBytes: 48 * 1024 * 1024,
  /**
   * Readers at most, whatever the cores: each holds PDFium's code and heap (about 70 MB idle, 120
   * at its limits), and two, beside the command, fit the bound; a third would not.
   */
  readers: 2,
} as const;
