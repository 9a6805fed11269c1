import { open, readdir, readFile, stat } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { errors } from '../errors.ts';
import type { SourceDocument } from '../source/source-types.ts';
import type { Settings } from '../config/settings.ts';
import { fetchSettings } from './fetch-settings.ts';
import { sourceFormat } from '../source/parse-source.ts';
import { prewarmPdfReader } from '../source/pdf/read-pdf-runs.ts';

/**
 * Loads the source documents named on the command line: files, directories and http(s) URLs.
 * A directory gives its *.pdf and *.xml files, and files without an extension (the authority's
 * downloads have none) whose first bytes are a PDF's or an XML document's, in name order. What a
 * document is comes from its content (parseSource), never its name. Order is kept, so the build
 * is the same on every run.
 */
export async function readSources(specs: string[], settings: Settings): Promise<SourceDocument[]> {
  const documents: SourceDocument[] = [];
  for (const spec of specs) {
    if (/^https?:\/\//i.test(spec)) documents.push({ name: spec, bytes: await download(spec, settings) });
    else documents.push(...(await readLocal(spec, settings.fetchMaxBytes)));
    // At the first PDF, the reader's threads start loading PDFium while the rest is read.
    if (documents.some((doc) => sourceFormat(doc.bytes) === 'pdf')) prewarmPdfReader();
  }
  return documents;
}

async function readLocal(path: string, maxBytes: number): Promise<SourceDocument[]> {
  const info = await stat(path).catch((error: NodeJS.ErrnoException) => {
    throw errors.sourceUnreadable(path, error.code === 'ENOENT' ? 'no such file or directory' : error.message);
  });
  const files = info.isDirectory() ? await sourceFilesIn(path) : [path];
  if (info.isDirectory() && files.length === 0) throw errors.sourceUnreadable(path, 'the directory holds no .pdf or .xml file');
  const documents: SourceDocument[] = [];
  for (const file of files) {
    const size = (await stat(file)).size;
    if (size > maxBytes) throw errors.sourceTooLarge(file, maxBytes);
    documents.push({ name: file, bytes: await readFile(file) });
  }
  return documents;
}

async function sourceFilesIn(dir: string): Promise<string[]> {
  const entries = (await readdir(dir, { withFileTypes: true })).filter((entry) => entry.isFile() && !entry.name.startsWith('.'));
  const files: string[] = [];
  for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const file = join(dir, entry.name);
    if (/\.(pdf|xml)$/i.test(entry.name)) files.push(file);
    else if (!extname(entry.name) && sourceFormat(await readHead(file)) !== null) files.push(file);
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
