import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { request, type Dispatcher } from 'undici';
import { errors } from '../errors.ts';
import { manifestSchema, type Format, type Manifest } from '../release/manifest.ts';
import { mustWait, retryNotBefore } from './retry-rules.ts';
import { readSyncState, writeSyncState, type SyncState } from './sync-state.ts';

export interface SyncOptions {
  /** The API's base URL, with /v1 ("https://tariff.example.it/v1"). */
  api: string;
  format: Format;
  dest: string;
  key: string;
  now: () => Date;
  /** Seconds for the whole run; a download slower than this fails and installs nothing. */
  deadlineMs: number;
  dispatcher?: Dispatcher;
}

export interface SyncResult {
  status: 'current' | 'updated';
  version: string;
  previousVersion: string | null;
  /** The installed file. */
  file: string;
  sha256: string;
  /** Reads of the daily quota this run spent. */
  reads: number;
  /** Compressed bytes downloaded. */
  bytes: number;
}

/** The file a format is installed as, uncompressed, ready for its engine. */
export const installedName = (format: Format) => `dataset.${format}`;

/**
 * The interface spec's recommended client, once: one `/version` call; nothing more when that
 * version is installed; otherwise one download, checked against the manifest (size, SHA-256, the
 * ETag naming the same file), unpacked and opened with its engine, then renamed into place, so the
 * installed copy stays whole until the new one replaces it. A refusal for quota or a server error
 * is recorded with the moment the service named, and no call is made before it.
 */
export async function syncDataset(options: SyncOptions): Promise<SyncResult> {
  const { dest, format } = options;
  await mkdir(dest, { recursive: true, mode: 0o755 });
  const state = await readSyncState(dest);
  const now = options.now();
  if (state.notBefore && Date.parse(state.notBefore) > now.getTime())
    throw errors.syncWaiting(state.notBefore, state.waitReason ?? 'an earlier answer');

  const signal = AbortSignal.timeout(options.deadlineMs);
  const base = options.api.replace(/\/+$/, '');
  let reads = 0;
  const call = async (path: string) => {
    const url = `${base}${path}`;
    let response: Dispatcher.ResponseData;
    try {
      response = await request(url, {
        headers: { authorization: `Bearer ${options.key}`, 'user-agent': 'tariff-sync' },
        dispatcher: options.dispatcher,
        signal,
      });
    } catch (error) {
      throw errors.syncFailed(url, `cannot reach the service: ${(error as Error).message}`);
    }
    reads += 1;
    if (response.statusCode === 200) return { url, response };
    const body = await response.body.text().catch(() => '');
    const code = errorCode(body) ?? `http_${response.statusCode}`;
    if (mustWait(response.statusCode)) {
      const retryAfter = response.headers['retry-after'];
      const notBefore = retryNotBefore(response.statusCode, Array.isArray(retryAfter) ? retryAfter[0] : retryAfter, options.now());
      const waitReason = `${response.statusCode} ${code}`;
      const until = notBefore.toISOString().replace('.000Z', 'Z');
      await writeSyncState(dest, { ...state, notBefore: until, waitReason, lastCheckAt: now.toISOString() });
      throw errors.syncRefused(url, response.statusCode, code, `try again after ${until}; until then this command makes no call`);
    }
    throw errors.syncRefused(url, response.statusCode, code, refusalDetail(response.statusCode, code, base));
  };

  const { url: versionUrl, response: versionResponse } = await call('/version');
  const manifest = parseManifest(versionUrl, await versionResponse.body.text());
  const installed = state.installed;
  const checked: SyncState = { ...state, notBefore: null, waitReason: null, lastCheckAt: now.toISOString() };
  if (installed && installed.version === manifest.version && installed.format === format) {
    await writeSyncState(dest, checked);
    return {
      status: 'current',
      version: manifest.version,
      previousVersion: installed.version,
      file: join(dest, installed.file),
      sha256: installed.sha256,
      reads,
      bytes: 0,
    };
  }

  const expected = manifest.files[format];
  const { url, response } = await call(`/dataset.${format}.gz`);
  const etag = headerOf(response.headers.etag);
  // The release switched between the two calls: this file is not the manifest's. The next run gets both anew.
  if (etag !== null && etag !== `"${expected.sha256}"`) {
    // Dropping the body is our choice: its abort is not an error of this run.
    response.body.on('error', () => {});
    response.body.destroy();
    throw errors.syncVerifyFailed(url, `its ETag ${etag} is not the SHA-256 the manifest names (a new release came out meanwhile)`);
  }
  const name = installedName(format);
  const downloaded = join(dest, `.${name}.gz.download-${process.pid}`);
  const unpacked = join(dest, `.${name}.download-${process.pid}`);
  try {
    const { sha256, bytes } = await download(response.body, downloaded, expected.size, url);
    // The compressed bytes are checked before anything is unpacked: a file the manifest does not name is never opened.
    if (bytes !== expected.size) throw errors.syncVerifyFailed(url, `${bytes} bytes received, the manifest says ${expected.size}`);
    if (sha256 !== expected.sha256) throw errors.syncVerifyFailed(url, `SHA-256 ${sha256}, the manifest says ${expected.sha256}`);
    await unpack(downloaded, unpacked, bytes, url);
    // Loaded only here: a sync with nothing new (the usual run at a till) needs no dataset engine.
    const { checkInstallable } = await import('./check-installable.ts');
    const problem = await checkInstallable(format, unpacked, manifest);
    if (problem) throw errors.syncVerifyFailed(url, problem);
    await rename(unpacked, join(dest, name));
    await writeSyncState(dest, {
      ...checked,
      installed: { version: manifest.version, format, file: name, sha256, etag, installedAt: options.now().toISOString() },
    });
    // Another format installed before (the till switched formats): its file is no longer kept current.
    if (installed && installed.file !== name) await rm(join(dest, installed.file), { force: true });
    return {
      status: 'updated',
      version: manifest.version,
      previousVersion: installed?.version ?? null,
      file: join(dest, name),
      sha256,
      reads,
      bytes,
    };
  } finally {
    await rm(downloaded, { force: true });
    await rm(unpacked, { force: true });
  }
}

/**
 * Unpacked, a release file is a few times its download (about 16 for a small SQLite file): more
 * than this many times, with the floor below for tiny files, is a gzip bomb, refused before it fills the disk.
 */
const MAX_UNPACK_RATIO = 100;
const MIN_UNPACK_LIMIT_BYTES = 64 * 1024 * 1024;

/** Writes the body to `path` with its size and SHA-256, stopping as soon as it is longer than the manifest says. */
async function download(body: NodeJS.ReadableStream, path: string, size: number, url: string): Promise<{ sha256: string; bytes: number }> {
  const hash = createHash('sha256');
  let bytes = 0;
  const measure = new Transform({
    transform(chunk: Buffer, _, done) {
      hash.update(chunk);
      bytes += chunk.length;
      if (bytes > size) return done(new Error(`the body is longer than the ${size} bytes the manifest says`));
      done(null, chunk);
    },
  });
  try {
    await pipeline(body, measure, createWriteStream(path, { mode: 0o600 }));
  } catch (error) {
    throw errors.syncVerifyFailed(url, (error as Error).message);
  }
  return { sha256: hash.digest('hex'), bytes };
}

/** Unpacks a verified download, refusing one that unpacks far beyond what a release file does. */
async function unpack(from: string, to: string, compressedBytes: number, url: string): Promise<void> {
  const limit = Math.max(MIN_UNPACK_LIMIT_BYTES, compressedBytes * MAX_UNPACK_RATIO);
  let written = 0;
  const bound = new Transform({
    transform(chunk: Buffer, _, done) {
      written += chunk.length;
      if (written > limit) return done(new Error(`it unpacks to more than ${limit} bytes, ${MAX_UNPACK_RATIO} times its size at most`));
      done(null, chunk);
    },
  });
  try {
    await pipeline(createReadStream(from), createGunzip(), bound, createWriteStream(to, { mode: 0o644 }));
  } catch (error) {
    // A corrupted gzip stream fails here, before the engine could say so.
    throw errors.syncVerifyFailed(url, `it does not unpack (${(error as Error).message})`);
  }
}

function parseManifest(url: string, text: string): Manifest {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw errors.syncFailed(url, 'the answer is not JSON');
  }
  const parsed = manifestSchema.safeParse(json);
  if (!parsed.success)
    throw errors.syncFailed(
      url,
      `the answer is not a release manifest (${parsed.error.issues[0]?.path.join('.') || 'root'}: ${parsed.error.issues[0]?.message})`,
    );
  return parsed.data;
}

function errorCode(body: string): string | null {
  try {
    const code = (JSON.parse(body) as { error?: unknown }).error;
    return typeof code === 'string' && /^[a-z_]{1,40}$/.test(code) ? code : null;
  } catch {
    return null;
  }
}

const headerOf = (value: string | string[] | undefined): string | null => (Array.isArray(value) ? (value[0] ?? null) : (value ?? null));

/** What a refusal means for the operator: a 404 that is not the service's own answer is a wrong --api. */
function refusalDetail(status: number, code: string, base: string): string {
  if (status === 404 && code === 'no_release') return 'nothing has been published yet';
  if (status === 404 && !/\/v1$/.test(base))
    return `not synced: --api must be the service's /v1 base URL (e.g. ${base.replace(/\/+$/, '')}/v1), which answers /version`;
  if (status === 404) return "not synced: no such path; is --api the service's /v1 base URL?";
  return 'not synced';
}
