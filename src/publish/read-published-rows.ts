import type { Dataset } from '../dataset/model.ts';
import { openDatasetFile } from '../release/read-release.ts';
import type { Manifest } from '../release/manifest.ts';
import type { Bucket } from '../storage/bucket.ts';
import { releaseFileKey } from './bucket-layout.ts';

/**
 * The rows of a published release, read from its JSON file in the bucket: the next release's
 * changes are computed against them and the shrink guard counts them. Null, with `say` told why,
 * when the file cannot be read: the next release then carries no changes.
 */
export async function readPublishedRows(bucket: Bucket, manifest: Manifest, say: (line: string) => void): Promise<Dataset | null> {
  const key = releaseFileKey(manifest.version, 'json');
  try {
    const bytes = await bucket.get(key);
    if (!bytes) throw new Error('the file is missing');
    return await openDatasetFile('json', bytes);
  } catch (error) {
    say(unreadablePrevious(`${bucket.description}${key}`, error));
    return null;
  }
}

/** What an unreadable previous release costs, in one line for the operator. */
export function unreadablePrevious(where: string, error: unknown): string {
  return `cannot read the previous release's rows in ${where} (${(error as Error).message}): the new release carries no changes, and only the total product count guards against shrinking`;
}
