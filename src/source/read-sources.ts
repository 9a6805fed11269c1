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

/** One download with the same client as `tariff fetch` (timeouts, size cap, bounded retries), unconditional. */
async function download(url: string): Promise<Uint8Array> {
  // Loaded on first use: most builds read local files, and undici is the slowest module to load.
  const { fetchAgent, fetchSource } = await import('../fetch/fetch-source.ts');
  const { DEFAULT_RETRY_POLICY } = await import('../fetch/retry-policy.ts');
  const dispatcher = fetchAgent(10_000);
  try {
    const outcome = await fetchSource(url, {}, {
      dispatcher, maxBytes: MAX_SOURCE_BYTES, headersTimeoutMs: 30_000, bodyTimeoutMs: 60_000, policy: DEFAULT_RETRY_POLICY,
      sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)), now: () => new Date(),
    });
    if (outcome.kind !== 'downloaded') throw new Error('the server answered 304 Not Modified to an unconditional request');
    return outcome.bytes;
  } catch (error) {
    const message = (error as Error).message;
    throw errors.sourceUnreadable(url, message.startsWith(`${url}: `) ? message.slice(url.length + 2) : message);
  } finally {
    await dispatcher.close();
  }
}
