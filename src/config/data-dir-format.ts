import { access, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as z from 'zod';
import { errors } from '../errors.ts';
import { writeFileAtomic } from '../util/durable-write.ts';

/**
 * The file in the data dir that says which layout its files are in (snapshots, signing keys, the
 * embedded registry, the default bucket's folder), as the bucket's format object does for the
 * bucket (storage/bucket-format.ts) and the registry's schema version for its tables. Layout 1 is
 * the first that says so (tariff 1.0.0); a data dir without the file is of that layout (0.1.0 made
 * the same files) and is given the file by its first write.
 */
export const DATA_DIR_FORMAT_FILE = 'tariff-data-dir.json';
export const DATA_DIR_FORMAT = 1;

const formatSchema = z
  .object({ format: z.literal('tariff-data-dir'), version: z.number().int().positive(), createdBy: z.string() })
  .loose();

/**
 * Refuses a data dir of a newer layout by name (`data_dir_newer`), before the command reads or
 * writes anything in it: every command's first step (cli/context.ts). A data dir without the
 * file (none yet, or one of 0.1.0) passes.
 */
export async function checkDataDirFormat(dataDir: string): Promise<void> {
  const path = join(dataDir, DATA_DIR_FORMAT_FILE);
  const bytes = await readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return null;
    throw error;
  });
  if (bytes === null) return;
  let parsed: z.infer<typeof formatSchema>;
  try {
    parsed = formatSchema.parse(JSON.parse(bytes));
  } catch (error) {
    throw errors.dataDirUnreadable(path, (error as Error).message.split('\n')[0]!);
  }
  if (parsed.version > DATA_DIR_FORMAT) throw errors.dataDirNewer(path, parsed.version, DATA_DIR_FORMAT, parsed.createdBy);
}

/**
 * Writes the format file into a data dir that has none, when a command first writes there (the
 * writers' lock, the registry): a data dir of 0.1.0 is taken over by that write, and a dry run or
 * a reader leaves the data dir as it found it. A data dir this user may not write is left alone.
 */
export async function markDataDirFormat(dataDir: string, createdBy: string): Promise<void> {
  const path = join(dataDir, DATA_DIR_FORMAT_FILE);
  const present = await access(path).then(
    () => true,
    () => false,
  );
  if (present) return;
  const body = `${JSON.stringify({ format: 'tariff-data-dir', version: DATA_DIR_FORMAT, createdBy }, null, 2)}\n`;
  await writeFileAtomic(path, body).catch((error: NodeJS.ErrnoException) => {
    if (!['ENOENT', 'ENOTDIR', 'EACCES', 'EPERM', 'EROFS'].includes(error.code ?? '')) throw error;
  });
}
