import { constants, type Stats } from 'node:fs';
import { lstat, open, readdir, readlink } from 'node:fs/promises';
import { dirname, extname, join, resolve } from 'node:path';
import { errors } from '../errors.ts';
import type { SourceDocument } from '../source/source-types.ts';
import type { Settings } from '../config/settings.ts';
import { fetchSettings } from './fetch-settings.ts';
import { parseSource, sourceFormat } from '../source/parse-source.ts';
import { sha256Hex } from '../util/digests.ts';
import { prewarmPdfReader, releasePdfReaders } from '../source/pdf/read-pdf-runs.ts';

/** How documents are read. */
export interface ReadSourcesOptions {
  /**
   * Parse each document as soon as it is read and let its bytes go (`parsed` and `digest` say what
   * it was): a folder of large files then costs the memory of a few at a time, not of them all.
   */
  parse?: boolean;
  /** Given each document's bytes as soon as they are read, before they are let go (kept in the snapshots by digest). */
  keep?: (name: string, bytes: Uint8Array) => Promise<unknown>;
}

/**
 * Bytes of documents held at once while they are parsed as they are read (one larger document is
 * read alone): with the PDF readers, within the memory bound of docs/source-format.md.
 */
const READ_AHEAD_BYTES = 64 * 1024 * 1024;

/**
 * Loads the source documents named on the command line: files, directories and http(s) URLs.
 * A directory gives its *.pdf and *.xml files, and files without an extension (the authority's
 * downloads have none) whose first bytes are a PDF's or an XML document's, in name order. What a
 * document is comes from its content (parseSource), never its name. Order is kept, so the build
 * is the same on every run. Only regular files are read (a link is followed once to one), and no
 * more than the byte cap of each, counted as it is read.
 */
export async function readSources(specs: string[], settings: Settings, options: ReadSourcesOptions = {}): Promise<SourceDocument[]> {
  const documents: Promise<SourceDocument>[] = [];
  const budget = new ReadBudget(READ_AHEAD_BYTES);
  let failed = false;
  for (const spec of specs) {
    if (failed) break;
    const files = /^https?:\/\//i.test(spec) ? [null] : await localFiles(spec);
    for (const file of files) {
      // A document that did not parse ends the reading: the run fails with it (below), nothing more is read.
      if (failed) break;
      // One read at a time; the parsing of what was read goes on meanwhile.
      const bytes = file === null ? await download(spec, settings) : await readRegularFile(file, settings.fetchMaxBytes);
      const name = file ?? spec;
      await options.keep?.(name, bytes);
      // At the first PDF, the reader's processes start loading PDFium while the rest is read.
      if (sourceFormat(bytes) === 'pdf') prewarmPdfReader();
      if (!options.parse) documents.push(Promise.resolve({ name, bytes }));
      else {
        const parsing = budget.hold(bytes, () => parsedDocument(name, bytes));
        // Handled here (the failure is the run's, through Promise.all below), never left unhandled meanwhile.
        parsing.catch(() => (failed = true));
        documents.push(parsing);
      }
      // Wait here while the documents in hand reach the budget: a folder is never read whole first.
      await budget.room();
    }
  }
  const read = await Promise.all(documents);
  // Every document is parsed: the readers' memory (about 90 MB each) goes back before the build uses its own.
  if (options.parse) releasePdfReaders();
  return read;
}

/** A document parsed as soon as it is read, its bytes let go. */
async function parsedDocument(name: string, bytes: Uint8Array): Promise<SourceDocument> {
  const parsed = await parseSource(bytes, name);
  return { name, bytes: new Uint8Array(0), parsed, digest: { sha256: sha256Hex(bytes), size: bytes.length } };
}

/** The bytes of documents in hand; reading waits while they reach the budget (but one document always may be read). */
class ReadBudget {
  private inHand = 0;
  private readonly released: (() => void)[] = [];
  private readonly limit: number;

  constructor(limit: number) {
    this.limit = limit;
  }

  /** Counts a document's bytes, read, until `use` has finished with them. */
  async hold(bytes: Uint8Array, use: () => Promise<SourceDocument>): Promise<SourceDocument> {
    this.inHand += bytes.length;
    try {
      return await use();
    } finally {
      this.inHand -= bytes.length;
      this.released.splice(0).forEach((wake) => wake());
    }
  }

  /** Settles once the documents in hand are under the budget. */
  async room(): Promise<void> {
    while (this.inHand >= this.limit) await new Promise<void>((wake) => this.released.push(wake));
  }
}

/** The files a path names: itself, or a directory's source files. */
async function localFiles(path: string): Promise<string[]> {
  const info = await lstat(path).catch((error: NodeJS.ErrnoException) => {
    throw errors.sourceUnreadable(path, error.code === 'ENOENT' ? 'no such file or directory' : error.message);
  });
  if (!info.isDirectory()) return [path];
  const files = await sourceFilesIn(path);
  if (files.length === 0) throw errors.sourceUnreadable(path, 'the directory holds no .pdf or .xml file');
  return files;
}

/** What a file system entry is, for a message: "a FIFO", "a character device" … */
function kindOf(info: Stats): string {
  if (info.isFIFO()) return 'a FIFO';
  if (info.isCharacterDevice()) return 'a character device';
  if (info.isBlockDevice()) return 'a block device';
  if (info.isSocket()) return 'a socket';
  if (info.isDirectory()) return 'a directory';
  if (info.isSymbolicLink()) return 'a link to a link';
  return 'not a regular file';
}

/** The regular file a path names: itself, or what a link names (followed once); null with why not. */
async function regularFile(path: string): Promise<{ file: string } | { refused: string }> {
  const info = await lstat(path);
  if (info.isFile()) return { file: path };
  if (!info.isSymbolicLink()) return { refused: `${kindOf(info)}, not a file` };
  const target = resolve(dirname(path), await readlink(path));
  const named = await lstat(target).catch(() => null);
  if (!named) return { refused: `a link to ${target}, which does not exist` };
  return named.isFile() ? { file: target } : { refused: `a link to ${kindOf(named)} (${target}), not to a file` };
}

/**
 * Reads a regular file, counting its bytes as they come (a size the file system reports is not
 * trusted): past `maxBytes` it stops. Opened without following a link and without waiting, so a
 * file swapped for a FIFO or a link meanwhile is refused, never blocked on.
 */
async function readRegularFile(path: string, maxBytes: number): Promise<Uint8Array> {
  const found = await regularFile(path).catch((error: NodeJS.ErrnoException) => {
    throw errors.sourceUnreadable(path, error.code === 'ENOENT' ? 'no such file or directory' : error.message);
  });
  if ('refused' in found) throw errors.sourceUnreadable(path, `it is ${found.refused}`);
  const handle = await open(found.file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch(
    (error: NodeJS.ErrnoException) => {
      throw errors.sourceUnreadable(path, error.code === 'ELOOP' ? 'it became a link while it was read' : error.message);
    },
  );
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw errors.sourceUnreadable(path, `it is ${kindOf(info)}, not a file`);
    // Read into one buffer sized as the file says (not trusted: it grows if the file does, up to the cap).
    let buffer = Buffer.allocUnsafe(Math.min(info.size, maxBytes) + 1);
    let total = 0;
    for (;;) {
      if (total === buffer.length) {
        if (total > maxBytes) throw errors.sourceTooLarge(path, maxBytes);
        const grown = Buffer.allocUnsafe(Math.min(buffer.length * 2, maxBytes + 1));
        buffer.copy(grown, 0, 0, total);
        buffer = grown;
      }
      const { bytesRead } = await handle.read(buffer, total, buffer.length - total, null);
      if (bytesRead === 0) break;
      total += bytesRead;
    }
    if (total > maxBytes) throw errors.sourceTooLarge(path, maxBytes);
    return buffer.subarray(0, total);
  } finally {
    await handle.close();
  }
}

async function sourceFilesIn(dir: string): Promise<string[]> {
  const entries = (await readdir(dir, { withFileTypes: true })).filter(
    (entry) => (entry.isFile() || entry.isSymbolicLink()) && !entry.name.startsWith('.'),
  );
  const files: string[] = [];
  for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const file = join(dir, entry.name);
    if (/\.(pdf|xml)$/i.test(entry.name)) files.push(file);
    else if (!extname(entry.name) && entry.isFile() && sourceFormat(await readHead(file)) !== null) files.push(file);
  }
  return files;
}

async function readHead(file: string): Promise<Uint8Array> {
  const handle = await open(file, 'r');
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(1024), 0, 1024, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/**
 * One download with the same client and settings as `tariff fetch` (timeouts, deadline, redirects,
 * size cap, bounded retries), unconditional.
 */
async function download(url: string, settings: Settings): Promise<Uint8Array> {
  // Loaded on first use: most builds read local files, and undici is the slowest module to load.
  const { fetchAgent, fetchSource } = await import('./fetch-source.ts');
  const { connectTimeoutMs, ...options } = fetchSettings(settings, () => new Date());
  const dispatcher = fetchAgent(connectTimeoutMs);
  try {
    const outcome = await fetchSource(url, {}, { ...options, dispatcher });
    if (outcome.kind !== 'downloaded') throw new Error('the server answered 304 Not Modified to an unconditional request');
    return outcome.bytes;
  } catch (error) {
    const message = (error as Error).message;
    throw errors.sourceUnreadable(url, message.startsWith(`${url}: `) ? message.slice(url.length + 2) : message);
  } finally {
    await dispatcher.close();
  }
}
