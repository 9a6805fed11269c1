import { mkdir, readFile, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import * as z from 'zod';
import { sha256Hex } from '../util/digests.ts';
import { sourceFormat } from '../source/parse-source.ts';
import { writeFileAtomic } from '../util/durable-write.ts';
import type { DocumentsState } from './retain-documents.ts';

const sourceStateSchema = z.object({
  sha256: z.string(),
  etag: z.string().optional(),
  lastModified: z.string().optional(),
  fetchedAt: z.string(),
  checkedAt: z.string(),
  effectiveDates: z.array(z.string()),
  /** What the document is, read from its content (documents found through the pages): so a 304 needs no new reading. */
  kind: z.enum(['list', 'notice', 'campione', 'other']).optional(),
  /** A list's feed category, or a notice's dataset categories. */
  categories: z.array(z.string()).optional(),
  /** Why a document is left out (a Campione d'Italia list, not a price document, an undated notice). */
  detail: z.string().optional(),
  /** Earlier snapshots of the URL still needed: the one in force while the latest waits for its day. */
  kept: z.array(z.object({ sha256: z.string(), effectiveDates: z.array(z.string()) })).optional(),
});
const stateSchema = z.record(z.string(), sourceStateSchema);

const keptSchema = z.object({
  sha256: z.string(),
  url: z.string(),
  effectiveFrom: z.string(),
  fetchedAt: z.string(),
  categories: z.array(z.string()).optional(),
});
const documentsSchema = z.object({ lists: z.record(z.string(), z.array(keptSchema)), notices: z.array(keptSchema) });

export type SourceState = z.infer<typeof sourceStateSchema>;
export type SourcesState = z.infer<typeof stateSchema>;

export interface SnapshotMeta {
  sha256: string;
  size: number;
  url: string;
  fetchedAt: string;
  etag?: string;
  lastModified?: string;
}

/**
 * Raw downloads kept by content: `<data-dir>/snapshots/<sha256>.pdf` (or `.xml`), with
 * `<sha256>.json` saying when and where the bytes first came from. `<data-dir>/sources.json`
 * records, per URL, the latest valid snapshot and its HTTP validators; `<data-dir>/documents.json`
 * the lists and notices found through the authority's pages that the next builds may need. The
 * same bytes are stored once.
 */
export class SnapshotStore {
  readonly dir: string;
  private readonly statePath: string;
  private readonly documentsPath: string;
  /** A dry run's store writes nothing: new snapshots stay in memory, the state files as they were. */
  private readonly unsaved: Map<string, Uint8Array> | null;

  constructor(dataDir: string, options: { readOnly?: boolean } = {}) {
    this.dir = join(dataDir, 'snapshots');
    this.statePath = join(dataDir, 'sources.json');
    this.documentsPath = join(dataDir, 'documents.json');
    this.unsaved = options.readOnly ? new Map() : null;
  }

  readDocuments(): Promise<DocumentsState> {
    return readJson(this.documentsPath, documentsSchema, { lists: {}, notices: [] });
  }

  async writeDocuments(state: DocumentsState): Promise<void> {
    if (!this.unsaved) await writeJson(this.documentsPath, state);
  }

  readState(): Promise<SourcesState> {
    return readJson(this.statePath, stateSchema, {});
  }

  async writeState(state: SourcesState): Promise<void> {
    if (!this.unsaved) await writeJson(this.statePath, state);
  }

  /** Stores the bytes unless the same bytes are already there; returns their SHA-256. */
  async store(bytes: Uint8Array, meta: Omit<SnapshotMeta, 'sha256' | 'size'>): Promise<string> {
    const sha256 = sha256Hex(bytes);
    if (this.unsaved) return (this.unsaved.set(sha256, bytes), sha256);
    const path = this.path(sha256, bytes);
    if (
      await stat(path).then(
        () => true,
        () => false,
      )
    )
      return sha256;
    await mkdir(this.dir, { recursive: true });
    await writeFileAtomic(path, bytes);
    await writeFileAtomic(
      join(this.dir, `${sha256}.json`),
      `${JSON.stringify({ sha256, size: bytes.length, ...meta } satisfies SnapshotMeta, null, 2)}\n`,
    );
    return sha256;
  }

  /** Where the bytes with this digest are kept: `.pdf` for a PDF, `.xml` otherwise. */
  path(sha256: string, bytes: Uint8Array): string {
    return join(this.dir, `${sha256}.${sourceFormat(bytes) === 'pdf' ? 'pdf' : 'xml'}`);
  }

  async read(sha256: string): Promise<Buffer> {
    const unsaved = this.unsaved?.get(sha256);
    if (unsaved) return Buffer.from(unsaved);
    const pdf = join(this.dir, `${sha256}.pdf`);
    return readFile(pdf).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return readFile(join(this.dir, `${sha256}.xml`));
      throw error;
    });
  }
}

/** A state file checked against its schema; `empty` when it does not exist yet (the first run). */
async function readJson<T>(path: string, schema: z.ZodType<T>, empty: T): Promise<T> {
  const text = await readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return null;
    throw error;
  });
  return text === null ? empty : schema.parse(JSON.parse(text));
}

async function writeJson(path: string, value: unknown): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFileAtomic(path, `${JSON.stringify(value, null, 2)}\n`);
}
