import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as z from 'zod';
import { errors } from '../errors.ts';
import { FORMATS } from '../release/manifest.ts';
import { writeFileAtomic } from '../util/durable-write.ts';
import { jsonOrNull } from '../util/json-or-null.ts';

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
  /**
   * How `dataset.<format>` is installed here: a symbolic link to the versioned copy, or, where the
   * destination cannot hold links (vfat, SMB shares, Windows without the right), the file itself,
   * replaced by an atomic rename. Null until a sync found out; tried once, then remembered.
   */
  layout: z.enum(['link', 'plain']).nullable().default(null),
});
export type SyncState = z.infer<typeof stateSchema>;

export const EMPTY_STATE: SyncState = {
  installed: null,
  notBefore: null,
  waitReason: null,
  lastCheckAt: null,
  accepted: null,
  layout: null,
};

/**
 * The state of a destination directory; null when there is none or it cannot be used (missing,
 * damaged, another version's): the caller then rebuilds it from what is installed, never taking
 * it for "nothing installed". A state that exists but cannot be read at all is a fault of the folder.
 */
export async function readSyncState(dest: string): Promise<SyncState | null> {
  const path = join(dest, STATE_FILE);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw errors.syncFailed(path, `cannot read the sync state: ${(error as Error).message}`);
  }
  const parsed = stateSchema.safeParse(jsonOrNull(text));
  return parsed.success ? parsed.data : null;
}

/** Written aside, flushed and renamed: a crash or a power cut leaves the old state or the new one, never half of one. */
export async function writeSyncState(dest: string, state: SyncState): Promise<void> {
  await writeFileAtomic(join(dest, STATE_FILE), `${JSON.stringify(state, null, 2)}\n`);
}
