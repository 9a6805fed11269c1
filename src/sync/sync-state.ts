import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as z from 'zod';
import { errors } from '../errors.ts';
import { FORMATS } from '../release/manifest.ts';
import { writeFileAtomic } from '../util/durable-write.ts';

export const STATE_FILE = 'sync-state.json';

const stateSchema = z.object({
  /** The installed copy: null until a first sync installed one. */
  installed: z
    .object({
      version: z.string(),
      format: z.enum(FORMATS),
      file: z.string(),
      /** The SHA-256 of the downloaded (compressed) file: the manifest's. */
      sha256: z.string(),
      etag: z.string().nullable(),
      installedAt: z.string(),
      /**
       * The installed (unpacked) file as it was put in place: its size and modification time,
       * compared on every run, and its SHA-256, compared when they differ (or with --check).
       * Absent in a state written before they were recorded: the copy is then checked by its engine.
       */
      fileSize: z.number().int().nonnegative().optional(),
      fileMtimeMs: z.number().optional(),
      fileSha256: z.string().optional(),
    })
    .nullable(),
  /** The service asked to wait: no call before this instant. */
  notBefore: z.string().nullable(),
  /** Why it asked (the status and error code of its answer). */
  waitReason: z.string().nullable(),
  lastCheckAt: z.string().nullable(),
  /** The last signed manifest accepted (with --public-key): an older one is a replay. */
  accepted: z.object({ sequence: z.number().int(), version: z.string() }).nullable().default(null),
});
export type SyncState = z.infer<typeof stateSchema>;

export const EMPTY_STATE: SyncState = { installed: null, notBefore: null, waitReason: null, lastCheckAt: null, accepted: null };

/** The state of a destination directory, or the empty state before a first sync. */
export async function readSyncState(dest: string): Promise<SyncState> {
  const path = join(dest, STATE_FILE);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return EMPTY_STATE;
    throw errors.syncFailed(path, `cannot read the sync state: ${(error as Error).message}`);
  }
  const parsed = stateSchema.safeParse(safeJson(text));
  if (!parsed.success)
    throw errors.syncFailed(
      path,
      'the sync state is not valid JSON of this tool; move it aside to start over (the next sync downloads the dataset again)',
    );
  return parsed.data;
}

/** Written aside, flushed and renamed: a crash or a power cut leaves the old state or the new one, never half of one. */
export async function writeSyncState(dest: string, state: SyncState): Promise<void> {
  await writeFileAtomic(join(dest, STATE_FILE), `${JSON.stringify(state, null, 2)}\n`);
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
