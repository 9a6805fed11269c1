import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { errors } from '../errors.ts';
import { fileName, manifestSchema, type Format, type Manifest } from '../release/manifest.ts';
import type { TrustedKey } from '../release/signing-keys.ts';
import { checkManifestTrust } from './manifest-trust.ts';
import { reason, ServiceClient, type ServiceAnswer } from './service-client.ts';
import { renameDurable } from '../util/durable-write.ts';
import { faultRemedy, machineFault } from '../util/machine-fault.ts';
import {
  checkInstalledCopy,
  copyName,
  installedName,
  pointTo,
  recoverInstalled,
  removeStale,
  type Installed,
  type MakeLink,
} from './installed-copy.ts';
import { EMPTY_STATE, readSyncState, writeSyncState, type SyncState } from './sync-state.ts';

export interface SyncOptions {
  /** The API's base URL, with /v1 ("https://tariff.example.it/v1"). */
  api: string;
  format: Format;
  dest: string;
  key: string;
  now: () => Date;
  /** Seconds for the whole run; a download slower than this fails and installs nothing. */
  deadlineMs: number;
  /** The keys the till trusts to sign manifests (--public-key): with any, an unsigned or untrusted manifest is refused. */
  publicKeys?: readonly TrustedKey[];
  /** Hash the installed copy on this run even when its size and modification time are as installed (--check). */
  check?: boolean;
  /** How links are made in `dest` (default the file system's; a test passes one that refuses, as vfat does). */
  makeLink?: MakeLink;
}

export interface SyncResult {
  /** repaired: the version was installed, but the copy was missing, changed or unreadable, and was downloaded again. */
  status: 'current' | 'updated' | 'repaired';
  /** What was wrong with the installed copy, when repaired. */
  repaired?: string;
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
  const now = options.now();
  const state = (await readSyncState(dest)) ?? { ...EMPTY_STATE, installed: await recoverInstalled(dest, format, now) };
  await removeStale(dest, state.installed);
  if (state.notBefore && Date.parse(state.notBefore) > now.getTime())
    throw errors.syncWaiting(state.notBefore, state.waitReason ?? 'an earlier answer');

  const signal = AbortSignal.timeout(options.deadlineMs);
  const service = new ServiceClient({
    ...options,
    signal,
    recordWait: (notBefore, waitReason) => writeSyncState(dest, { ...state, notBefore, waitReason, lastCheckAt: now.toISOString() }),
  });
  const { url: versionUrl, response: versionResponse } = await service.get('/version');
  const manifestText = await versionResponse.text().catch((error: unknown) => {
    throw errors.syncFailed(versionUrl, reason(error));
  });
  const manifest = parseManifest(versionUrl, manifestText);
  const pinned = options.publicKeys ?? [];
  // Checked before anything else is asked: a manifest the till does not trust costs no further read.
  if (pinned.length > 0)
    await checkManifestTrust(manifest, versionUrl, { pinned, now, last: state.accepted, api: options.api }, { signal });
  const installed = state.installed;
  const accepted = pinned.length > 0 ? { sequence: manifest.sequence!, version: manifest.version } : state.accepted;
  const checked: SyncState = { ...state, notBefore: null, waitReason: null, lastCheckAt: now.toISOString(), accepted };
  const file = join(dest, installedName(format));
  let repaired: string | undefined;
  if (installed && installed.version === manifest.version && installed.format === format) {
    const copy = await checkInstalledCopy(dest, installed, manifest, options.check ?? false);
    // A state rebuilt from the copy knows the compressed file's digest only once the copy checked out as the manifest's.
    const sha256 = installed.sha256 || expected(manifest, format).sha256;
    const kept = { version: manifest.version, previousVersion: installed.version, file, sha256, bytes: 0 };
    if (copy.ok) {
      await writeSyncState(dest, { ...checked, installed: { ...copy.installed, sha256 } });
      return { status: 'current', ...kept, reads: service.reads };
    }
    // The copy is whole and only the name a till opens was lost or moved: put back, nothing downloaded.
    if (copy.relink) {
      await writeSyncState(dest, checked);
      const placed = await pointTo(dest, format, installed.file, state.layout, options.makeLink);
      await writeSyncState(dest, { ...checked, layout: placed.layout, installed: { ...installed, sha256, file: placed.file } });
      await removeStale(dest, { ...installed, file: placed.file });
      return { status: 'repaired', repaired: copy.problem, ...kept, reads: service.reads };
    }
    repaired = copy.problem;
  }

  const installedNow = await install(options, manifest, await service.get(`/${fileName(format)}`));
  // The state names the new copy before the till's name points at it: cut short anywhere, the
  // state names a file that holds what it says (the next run moves the name when it must).
  await writeSyncState(dest, { ...checked, installed: installedNow });
  const placed = await pointTo(dest, format, installedNow.file, state.layout, options.makeLink);
  // In the plain layout the copy is now `dataset.<format>` itself: the state says so, and remembers the layout.
  if (placed.file !== installedNow.file || placed.layout !== state.layout)
    await writeSyncState(dest, { ...checked, layout: placed.layout, installed: { ...installedNow, file: placed.file } });
  // Another format installed before (the till switched formats): its name is no longer kept current.
  if (installed && installed.format !== format) await rm(join(dest, installedName(installed.format)), { force: true });
  await removeStale(dest, { ...installedNow, file: placed.file });
  return {
    status: repaired ? 'repaired' : 'updated',
    ...(repaired ? { repaired } : {}),
    version: manifest.version,
    previousVersion: installed?.version ?? null,
    file,
    sha256: installedNow.sha256,
    reads: service.reads,
    bytes: expected(manifest, format).size,
  };
}

const expected = (manifest: Manifest, format: Format) => manifest.files[format];

/**
 * Downloads a release file and installs it: checked against the manifest (the ETag naming the same
 * file, then size and SHA-256) before anything is unpacked, unpacked with a bound, opened with its
 * engine, then renamed into place. Temporary files go whatever happens.
 */
async function install(options: SyncOptions, manifest: Manifest, { url, response }: ServiceAnswer): Promise<Installed> {
  const { dest, format } = options;
  const { sha256: expectedSha, size } = expected(manifest, format);
  const etag = response.header('etag') ?? null;
  // The release switched between the two calls: this file is not the manifest's. The next run gets both anew.
  if (etag !== null && etag !== `"${expectedSha}"`) {
    // Dropping the body is our choice: its abort is not an error of this run.
    response.discard();
    throw errors.syncVerifyFailed(url, `its ETag ${etag} is not the SHA-256 the manifest names (a new release came out meanwhile)`);
  }
  const name = installedName(format);
  const copy = copyName(format, manifest.version);
  const downloaded = join(dest, `.${name}.gz.download-${process.pid}`);
  const unpacked = join(dest, `.${name}.download-${process.pid}`);
  try {
    const { sha256, bytes } = await download(response.body, downloaded, size, url);
    // The compressed bytes are checked before anything is unpacked: a file the manifest does not name is never opened.
    if (bytes !== size) throw errors.syncVerifyFailed(url, `${bytes} bytes received, the manifest says ${size}`);
    if (sha256 !== expectedSha) throw errors.syncVerifyFailed(url, `SHA-256 ${sha256}, the manifest says ${expectedSha}`);
    const fileSha256 = await unpack(downloaded, unpacked, bytes, url);
    // Loaded only here: a sync with nothing new (the usual run at a till) needs no dataset engine.
    const { checkInstallable } = await import('./check-installable.ts');
    const problem = await checkInstallable(format, unpacked, manifest);
    if (problem) throw errors.syncVerifyFailed(url, problem);
    await renameDurable(unpacked, join(dest, copy));
    const placed = await stat(join(dest, copy));
    return {
      version: manifest.version,
      format,
      file: copy,
      sha256,
      etag,
      installedAt: options.now().toISOString(),
      fileSize: placed.size,
      fileMtimeMs: placed.mtimeMs,
      fileSha256,
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
    throw cannotWrite(path, error) ?? errors.syncVerifyFailed(url, reason(error));
  }
  return { sha256: hash.digest('hex'), bytes };
}

/** Unpacks a verified download, refusing one that unpacks far beyond what a release file does. */
async function unpack(from: string, to: string, compressedBytes: number, url: string): Promise<string> {
  const limit = Math.max(MIN_UNPACK_LIMIT_BYTES, compressedBytes * MAX_UNPACK_RATIO);
  let written = 0;
  // The installed file's SHA-256, taken as it is written: the state records it without a second read.
  const hash = createHash('sha256');
  const bound = new Transform({
    transform(chunk: Buffer, _, done) {
      written += chunk.length;
      hash.update(chunk);
      if (written > limit) return done(new Error(`it unpacks to more than ${limit} bytes, ${MAX_UNPACK_RATIO} times its size at most`));
      done(null, chunk);
    },
  });
  try {
    await pipeline(createReadStream(from), createGunzip(), bound, createWriteStream(to, { mode: 0o644 }));
  } catch (error) {
    // A corrupted gzip stream fails here, before the engine could say so.
    throw cannotWrite(to, error) ?? errors.syncVerifyFailed(url, `it does not unpack (${(error as Error).message})`);
  }
  return hash.digest('hex');
}

/** A download that the till's folder could not take (full, read-only, not writable): said as that, not as a bad file. */
function cannotWrite(path: string, error: unknown): Error | null {
  const fault = machineFault(error);
  if (!fault || fault.condition === 'service_unreachable' || fault.condition === 'database_unreachable') return null;
  const remedy = faultRemedy({ ...fault, path: fault.path ?? dirname(path) });
  return errors.syncFailed(dirname(path), `cannot write the download there: ${fault.detail}; nothing was installed`, remedy);
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
