import { constants } from 'node:fs';
import { chmod, link, open, readdir, rm, rmdir, stat, type FileHandle } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { Readable } from 'node:stream';
import { sha256Hex } from '../util/digests.ts';
import { makeFolder } from '../util/make-folder.ts';
import { syncFolder, temporaryBeside, withTemporary, writeFileAtomic, writeFileDurable } from '../util/durable-write.ts';
import { cleanLeftovers } from '../util/leftovers.ts';
import {
  NotAnObject,
  type Bucket,
  type BucketObject,
  type ConditionalWrite,
  type CreateOnce,
  type CreateOptions,
  type TaggedObject,
} from './bucket.ts';

/**
 * A key that changes (current.json, the history's manifest, keys.json, the lease) lives in a
 * folder as its generations: `<key>.gen/000000000001`, `…/000000000002`, each created once and
 * exclusively (link of a written temporary), readers taking the highest. A compare-and-swap is
 * "create generation N+1 of the N I read": a second writer of N+1 gets EEXIST, however long it
 * was paused, so no file time, clock or lock decides anything, and a replaced pointer never comes
 * back. An empty generation is a deletion (a tombstone): a pointer is never zero bytes.
 */
const GENERATIONS = '.gen';
const GENERATION_NAME = /^\d{12}$/;
/**
 * Generations older than this many below the highest are removed. A writer whose N+1 lands that
 * far below the highest was paused across them (its N+1 may have been removed and so created
 * again): it takes its write back and reports a conflict. Legitimate writes never trail so far.
 */
const KEEP_GENERATIONS = 64;
/** How often a read retries when the generation it chose is removed under it. */
const READ_TRIES = 8;

const generationName = (n: number) => String(n).padStart(12, '0');

/** A folder object's tag: its SHA-256 for a plain file (as S3 gives an MD5), its generation for a pointer. */
const plainTag = (bytes: Uint8Array) => `"${sha256Hex(bytes)}"`;
const generationTag = (n: number) => `"g${generationName(n)}"`;

/** The state of a key as a compare-and-swap sees it: the generation read (0: none yet) and the object's tag, null when absent. */
interface KeyState {
  generation: number;
  object: TaggedObject | null;
  /** The key is still a plain file of an older layout (or a write-once key): its first swap turns it into generations. */
  plain: boolean;
}

/** A bucket in a local folder: each key a file, created once by link(); the keys that change as generations. */
export class LocalBucket implements Bucket {
  readonly root: string;
  readonly description: string;
  /** Pointers also kept as a plain file of the pointer's name, for readers of the older layout (storage/bucket-format.ts). */
  private readonly plainCopies: ReadonlySet<string>;

  constructor(root: string, options: { plainCopies?: Iterable<string> } = {}) {
    this.root = resolve(root);
    this.plainCopies = new Set(options.plainCopies ?? []);
    // Ends with '/', as an S3 bucket's does: messages append keys to it ("folder /srv/bucket/releases/…").
    this.description = `folder ${this.root}/`;
  }

  async removeLeftovers(): Promise<string[]> {
    return (await cleanLeftovers([this.root], 6)).map((path) => relative(this.root, path).split(sep).join('/'));
  }

  private path(key: string): string {
    const path = resolve(this.root, key);
    if (!path.startsWith(this.root + sep)) throw new Error(`bucket key ${key} leaves the bucket folder`);
    return path;
  }

  async get(key: string): Promise<Buffer | null> {
    return (await this.getTagged(key))?.bytes ?? null;
  }

  async getTagged(key: string): Promise<TaggedObject | null> {
    return (await this.state(key)).object;
  }

  async modified(key: string): Promise<Date | null> {
    const generations = await this.generations(key);
    const path = generations
      ? generations.length > 0
        ? join(this.generationsDir(key), generationName(generations.at(-1)!))
        : null
      : this.path(key);
    if (!path) return null;
    const info = await stat(path).catch(ifMissing(null));
    // An empty generation is the key's deletion: no object, no time.
    return info && !(generations && info.size === 0) ? info.mtime : null;
  }

  async open(key: string): Promise<BucketObject | null> {
    if (await this.generations(key)) {
      const object = await this.getTagged(key);
      if (!object) return null;
      return { size: object.bytes.length, body: Readable.from([object.bytes]) };
    }
    // Opening first pins the file: a later change of the key does not change what this stream reads.
    const opened = await this.openFile(this.path(key), key);
    if (!opened) return null;
    return { size: opened.size, body: opened.handle.createReadStream({ autoClose: true }) };
  }

  async create(key: string, data: Uint8Array, _contentType?: string, options: CreateOptions = {}): Promise<CreateOnce> {
    const path = this.path(key);
    return withPath(path, async () => {
      if (options.private) {
        // Its folder too, made so or made so now: a listing of private objects is theirs as well.
        await makeFolder(dirname(path), 0o700);
        await chmod(dirname(path), 0o700);
      }
      return (await linkNew(path, data, options.private ? 0o600 : 0o666)) ? 'written' : 'exists';
    });
  }

  async overwrite(key: string, data: Uint8Array, _contentType: string, expected: string): Promise<ConditionalWrite> {
    const path = this.path(key);
    return withPath(path, async () => {
      const now = await this.getTagged(key);
      if (now?.tag !== expected) return 'conflict';
      // Every writer repairs a key with the bytes its immutable manifest names: a late rename writes the same bytes.
      await writeFileAtomic(path, data);
      return 'written';
    });
  }

  async putIfUnchanged(
    key: string,
    data: Uint8Array,
    _contentType: string,
    expected: string | null,
    options: CreateOptions = {},
  ): Promise<ConditionalWrite> {
    if (data.length === 0) throw new Error(`${this.description}${key}: a pointer is never empty`);
    return withPath(this.path(key), () => this.swap(key, data, expected, options.private ?? false));
  }

  /** Creates generation N+1 of the N read, if the object read is still the one `expected` names. */
  private async swap(key: string, data: Uint8Array, expected: string | null, privately: boolean): Promise<ConditionalWrite> {
    const read = await this.state(key);
    if ((read.object?.tag ?? null) !== expected) return 'conflict';
    const dir = this.generationsDir(key);
    await makeFolder(dir, privately ? 0o700 : 0o777);
    // Made private now if an older version made it open: its generations are the object's copies.
    if (privately) await chmod(dir, 0o700);
    const next = read.generation + 1;
    if (!(await linkNew(join(dir, generationName(next)), data, privately ? 0o600 : 0o666))) return 'conflict';
    const after = (await this.generations(key)) ?? [];
    const highest = after.at(-1) ?? next;
    if (highest - next >= KEEP_GENERATIONS) {
      // Paused across many writers: this N+1 may be one removed before and created again. Taken back, refused.
      await rm(join(dir, generationName(next)), { force: true });
      return 'conflict';
    }
    // The plain file of the older layout is superseded by the generations: removed once they hold
    // the key, or kept as the copy older readers read.
    if (this.plainCopies.has(key)) await this.copyForOlderReaders(key);
    else if (read.plain) await rm(this.path(key), { force: true });
    for (const old of after.filter((n) => n <= highest - KEEP_GENERATIONS)) await rm(join(dir, generationName(old)), { force: true });
    return 'written';
  }

  /**
   * Makes the plain file of `key` hold what its highest generation holds (removed for a deletion),
   * for the readers of the older layout, which know no generations. It copies the highest, never
   * the bytes this writer swapped in, and looks again after its rename: a writer paused before its
   * copy and resumed after another's puts the newest back, so the copy trails only while a writer
   * is between its rename and its look. New readers never read it while generations exist.
   */
  private async copyForOlderReaders(key: string): Promise<void> {
    for (let attempt = 0; attempt < READ_TRIES; attempt += 1) {
      const before = await this.state(key);
      if (before.object) await writeFileAtomic(this.path(key), before.object.bytes);
      else await rm(this.path(key), { force: true });
      if ((await this.state(key)).generation === before.generation) return;
    }
  }

  private generationsDir(key: string): string {
    return this.path(key) + GENERATIONS;
  }

  /** The key's generations, lowest first; null when the key has none (a plain file, or nothing). */
  private async generations(key: string): Promise<number[] | null> {
    const names = await readdir(this.generationsDir(key)).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return null;
      throw error;
    });
    if (!names) return null;
    return names
      .filter((name) => GENERATION_NAME.test(name))
      .map(Number)
      .sort((a, b) => a - b);
  }

  private async state(key: string): Promise<KeyState> {
    for (let attempt = 0; attempt < READ_TRIES; attempt += 1) {
      const generations = await this.generations(key);
      if (!generations || generations.length === 0) {
        const bytes = await this.readPlain(key);
        return { generation: 0, object: bytes ? { bytes, tag: plainTag(bytes) } : null, plain: bytes !== null };
      }
      const highest = generations.at(-1)!;
      const opened = await this.openFile(join(this.generationsDir(key), generationName(highest)), key);
      // Removed under this read (only generations far below the highest are): read the list again.
      if (!opened) continue;
      const bytes = await readAll(opened.handle);
      return { generation: highest, object: bytes.length === 0 ? null : { bytes, tag: generationTag(highest) }, plain: false };
    }
    throw new Error(`${this.description}${key}: its generations kept changing while it was read`);
  }

  private async readPlain(key: string): Promise<Buffer | null> {
    const opened = await this.openFile(this.path(key), key);
    return opened ? readAll(opened.handle) : null;
  }

  /**
   * Opens an object's file, or null when there is none. Only a regular file is an object: a FIFO
   * or a device put where a key should be would block a read, or never end it, so it is opened
   * without waiting (O_NONBLOCK, no effect on a regular file) and refused by name.
   */
  private async openFile(path: string, key: string): Promise<{ handle: FileHandle; size: number } | null> {
    const handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK).catch(ifMissing(null));
    if (!handle) return null;
    const info = await handle.stat();
    if (!info.isFile()) {
      await handle.close();
      throw new NotAnObject(`${this.description}${key}`, info.isDirectory() ? 'a folder' : info.isFIFO() ? 'a FIFO' : 'a special file');
    }
    return { handle, size: info.size };
  }

  /** Unconditional write, for tests that damage a bucket as a disk or an operator would: no writer of the product calls it. */
  async put(key: string, data: Uint8Array, _contentType?: string): Promise<void> {
    const path = this.path(key);
    await withPath(path, async () => {
      await makeFolder(dirname(path));
      if (await this.generations(key)) {
        const state = await this.state(key);
        await linkNew(join(this.generationsDir(key), generationName(state.generation + 1)), data);
      } else await writeFileAtomic(path, data);
    });
  }

  async list(prefix: string): Promise<string[]> {
    const keys: string[] = [];
    const walk = async (dir: string): Promise<void> => {
      const entries = await readdir(dir, { withFileTypes: true }).catch(ifMissing([]));
      for (const entry of entries) {
        const path = join(dir, entry.name);
        const key = relative(this.root, path).split(sep).join('/');
        if (entry.isDirectory() && entry.name.endsWith(GENERATIONS)) {
          const pointer = key.slice(0, -GENERATIONS.length);
          if (await this.getTagged(pointer).catch(() => null)) keys.push(pointer);
        } else if (entry.isDirectory()) await walk(path);
        else if (entry.isFile() && !entry.name.endsWith('.tmp')) keys.push(key);
      }
    };
    // Only the folder that holds the prefix is read, not the whole bucket.
    const folder = prefix.includes('/') ? prefix.slice(0, prefix.lastIndexOf('/')) : '';
    await walk(folder ? this.path(folder) : this.root);
    return [...new Set(keys)].filter((key) => key.startsWith(prefix)).sort();
  }

  async delete(keys: string[]): Promise<void> {
    for (const key of keys) {
      const path = this.path(key);
      const generations = await this.generations(key);
      if (generations) {
        // A pointer's deletion is its next generation, empty: never a gap a late writer could fill.
        for (let attempt = 0; attempt < READ_TRIES; attempt += 1) {
          const state = await this.state(key);
          if (!state.object) break;
          if (await linkNew(join(this.generationsDir(key), generationName(state.generation + 1)), new Uint8Array())) break;
        }
        if (this.plainCopies.has(key)) await this.copyForOlderReaders(key);
        continue;
      }
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

async function readAll(handle: FileHandle): Promise<Buffer> {
  try {
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}

/**
 * Creates `path` with `data` only if no file has that name: written whole to a temporary beside
 * it and flushed, then linked to the name (link() never replaces), the folder flushed. False when
 * the name was taken.
 */
async function linkNew(path: string, data: Uint8Array, mode = 0o666): Promise<boolean> {
  for (let attempt = 1; ; attempt += 1) {
    // Its folder is made first: another writer's deletion drops a folder it leaves empty, and may
    // have dropped this one since the caller made it (then made again, a few times at most).
    await makeFolder(dirname(path));
    try {
      const created = await withTemporary(temporaryBeside(path), async (temporary) => {
        await writeFileDurable(temporary, data, mode);
        return link(temporary, path).then(
          () => true,
          (error: NodeJS.ErrnoException) => {
            if (error.code === 'EEXIST') return false;
            throw error;
          },
        );
      });
      if (created) await syncFolder(dirname(path));
      return created;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || attempt >= 3) throw error;
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
