import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { errors } from '../errors.ts';
import type { SourceDocument } from '../release/build-release.ts';

export const MAX_SOURCE_BYTES = 64 * 1024 * 1024;

/**
 * Loads the feed documents named on the command line: files, directories (every *.xml inside,
 * in name order) and http(s) URLs. Order is kept, so the build is the same on every run.
 */
export async function readSources(specs: string[]): Promise<SourceDocument[]> {
  const documents: SourceDocument[] = [];
  for (const spec of specs) {
    if (/^https?:\/\//i.test(spec)) documents.push({ name: spec, bytes: await download(spec) });
    else documents.push(...(await readLocal(spec)));
  }
  return documents;
}

async function readLocal(path: string): Promise<SourceDocument[]> {
  const info = await stat(path).catch((error: NodeJS.ErrnoException) => {
    throw errors.sourceUnreadable(path, error.code === 'ENOENT' ? 'no such file or directory' : error.message);
  });
  const files = info.isDirectory()
    ? (await readdir(path)).filter((name) => name.toLowerCase().endsWith('.xml')).sort().map((name) => join(path, name))
    : [path];
  if (info.isDirectory() && files.length === 0) throw errors.sourceUnreadable(path, 'the directory holds no .xml file');
  const documents: SourceDocument[] = [];
  for (const file of files) {
    const size = (await stat(file)).size;
    if (size > MAX_SOURCE_BYTES) throw errors.sourceTooLarge(file, MAX_SOURCE_BYTES);
    documents.push({ name: file, bytes: await readFile(file) });
  }
  return documents;
}

async function download(url: string): Promise<Uint8Array> {
  // Loaded on first use: most builds read local files, and undici is the slowest module to load.
  const { request } = await import('undici');
  let response;
  try {
    response = await request(url, { headersTimeout: 30_000, bodyTimeout: 60_000 });
  } catch (error) {
    throw errors.sourceUnreadable(url, (error as Error).message);
  }
  if (response.statusCode !== 200) {
    await response.body.dump();
    throw errors.sourceUnreadable(url, `the server answered HTTP ${response.statusCode}`);
  }
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    for await (const chunk of response.body) {
      total += chunk.length;
      if (total > MAX_SOURCE_BYTES) {
        response.body.destroy();
        throw errors.sourceTooLarge(url, MAX_SOURCE_BYTES);
      }
      chunks.push(chunk);
    }
  } catch (error) {
    if ((error as { code?: string }).code === 'source_too_large') throw error;
    throw errors.sourceUnreadable(url, `the download broke off: ${(error as Error).message}`);
  }
  return Buffer.concat(chunks);
}
