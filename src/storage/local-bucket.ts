import { constants } from 'node:fs';
import { mkdir, open, readdir, rm, rmdir, type FileHandle } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import lockfile from 'proper-lockfile';
import { sha256Hex } from '../util/digests.ts';
import { writeFileAtomic } from '../util/durable-write.ts';
import { cleanLeftovers } from '../util/leftovers.ts';
import type { Bucket, BucketObject, ConditionalWrite, TaggedObject } from './bucket.ts';

/**
 * The folder's lock for a compare-and-swap (a directory, created atomically, also over NFS): held
 * for one comparison and one rename, so a writer waits at most a few seconds; one left by a killed
 * writer is taken over once its time is up.
 */
const CAS_LOCK = '.tariff-cas.lock';
const CAS_LOCK_STALE_MS = 10_000;
const CAS_LOCK_RETRIES = { retries: 100, minTimeout: 5, maxTimeout: 100, factor: 1.5 };

/** A folder object's tag: its SHA-256, as S3 gives an MD5. */
const tagOf = (bytes: Uint8Array) => `"${sha256Hex(bytes)}"`;

/** A bucket in a local folder: each key is a file, written to a temporary name and renamed. */
export class LocalBucket implements Bucket {
  readonly root: string;
  readonly description: string;

  constructor(root: string) {
    this.root = resolve(root);
    // Ends with '/', as an S3 bucket's does: messages append keys to it ("folder /srv/bucket/releases/…").
    this.description = `folder ${this.root}/`;
  }

  async removeLeftovers(now: Date): Promise<string[]> {
    return (await cleanLeftovers([this.root], now, 6)).map((path) => relative(this.root, path).split(sep).join('/'));
  }

  private path(key: string): string {
    const path = resolve(this.root, key);
    if (!path.startsWith(this.root + sep)) throw new Error(`bucket key ${key} leaves the bucket folder`);
    return path;
  }

  async get(key: string): Promise<Buffer | null> {
    const opened = await this.openFile(key);
    if (!opened) return null;
    try {
      return await opened.handle.readFile();
    } finally {
      await opened.handle.close();
    }
  }

  /**
   * Opens an object's file, or null when there is none. Only a regular file is an object: a FIFO
   * or a device put where a key should be would block a read, or never end it, so it is opened
   * without waiting (O_NONBLOCK, no effect on a regular file) and refused by name.
   */
  private async openFile(key: string): Promise<{ handle: FileHandle; size: number } | null> {
    const handle = await open(this.path(key), constants.O_RDONLY | constants.O_NONBLOCK).catch(ifMissing(null));
    if (!handle) return null;
    const info = await handle.stat();
    if (!info.isFile()) {
      await handle.close();
      throw new Error(`${this.description}${key} is not a regular file`);
    }
    return { handle, size: info.size };
  }

  async getTagged(key: string): Promise<TaggedObject | null> {
    const bytes = await this.get(key);
    return bytes ? { bytes, tag: tagOf(bytes) } : null;
  }

  async putIfUnchanged(key: string, data: Uint8Array, _contentType: string, expected: string | null): Promise<ConditionalWrite> {
    const path = this.path(key);
    return withPath(path, () => this.compareAndSwap(key, path, data, expected));
  }

  private async compareAndSwap(key: string, path: string, data: Uint8Array, expected: string | null): Promise<ConditionalWrite> {
    await mkdir(dirname(path), { recursive: true });
    const unlock = await lockfile.lock(this.root, {
      lockfilePath: join(this.root, CAS_LOCK),
      realpath: false,
      stale: CAS_LOCK_STALE_MS,
      retries: CAS_LOCK_RETRIES,
    });
    try {
      const now = await this.get(key);
      if ((now === null ? null : tagOf(now)) !== expected) return 'conflict';
      await writeFileAtomic(path, data);
      return 'written';
    } finally {
      await unlock();
    }
  }

  async open(key: string): Promise<BucketObject | null> {
    // Opening first pins the file: a later rename over the key does not change what this stream reads.
    const opened = await this.openFile(key);
    if (!opened) return null;
    return { size: opened.size, body: opened.handle.createReadStream({ autoClose: true }) };
  }

  async put(key: string, data: Uint8Array): Promise<void> {
    const path = this.path(key);
    await withPath(path, async () => {
      await mkdir(dirname(path), { recursive: true });
      await writeFileAtomic(path, data);
    });
  }

  async list(prefix: string): Promise<string[]> {
    const keys: string[] = [];
    const walk = async (dir: string): Promise<void> => {
      const entries = await readdir(dir, { withFileTypes: true }).catch(ifMissing([]));
      for (const entry of entries) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) await walk(path);
        else if (entry.isFile() && !entry.name.endsWith('.tmp')) keys.push(relative(this.root, path).split(sep).join('/'));
      }
    };
    // Only the folder that holds the prefix is read, not the whole bucket.
    const folder = prefix.includes('/') ? prefix.slice(0, prefix.lastIndexOf('/')) : '';
    await walk(folder ? this.path(folder) : this.root);
    return keys.filter((key) => key.startsWith(prefix)).sort();
  }

  async delete(keys: string[]): Promise<void> {
    for (const key of keys) {
      const path = this.path(key);
      await rm(path, { force: true });
      // Folders only group keys: drop the ones left empty, as an object store would show them.
      for (let dir = dirname(path); dir.startsWith(this.root + sep); dir = dirname(dir)) {
        if (
          !(await rmdir(dir).then(
            () => true,
            () => false,
          ))
        )
          break;
      }
    }
  }
}

function ifMissing<T>(value: T): (error: NodeJS.ErrnoException) => T {
  return (error) => {
    if (error.code === 'ENOENT') return value;
    throw error;
  };
}

/**
 * Runs a write of `path`, naming it in an error that does not (a write or a flush fails with the
 * descriptor only): "no space left on the device" must say where.
 */
async function withPath<T>(path: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    const e = error as NodeJS.ErrnoException;
    if (e.code && !e.path) e.path = path;
    throw error;
  }
}
