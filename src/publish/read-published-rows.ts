import type { Dataset } from '../dataset/model.ts';
import { errors } from '../errors.ts';
import { openDatasetFile } from '../release/read-release.ts';
import { FORMATS, type Manifest } from '../release/manifest.ts';
import type { Bucket } from '../storage/bucket.ts';
import { releaseFileKey } from './bucket-layout.ts';
import { readCurrentManifest } from './bucket-releases.ts';
import { bucketCopies, intactFile, type CopySource } from './intact-copies.ts';

/**
 * The rows of a published release: the next release's changes are computed against them and the
 * shrink guard counts them. Read from the first intact copy (the manifest's SHA-256): the
 * bucket's JSON file, else `copies` (the local copy), else the bucket's SQLite or NeDB file, which
 * hold the same rows. A damaged current release thus still yields its rows, so it can be repaired
 * byte for byte and the next release still carries the changes. Null, with `say` told why, when
 * no copy is intact: the next release then carries no changes. A bucket that cannot be read fails
 * the run instead: a release without its changes is published only when the rows are truly lost.
 */
export async function readPublishedRows(
  bucket: Bucket,
  manifest: Manifest,
  say: (line: string) => void,
  copies: readonly CopySource[] = [],
): Promise<Dataset | null> {
  const sources = [bucketCopies(bucket), ...copies];
  for (const format of FORMATS) {
    const found = await intactFile(manifest, format, format === 'json' ? sources : [bucketCopies(bucket)]);
    if (!found) continue;
    try {
      const dataset = await openDatasetFile(format, found.bytes);
      if (format !== 'json' || found.from !== 'the bucket')
        say(`${manifest.version}: rows read from ${found.from}'s ${format} file (the bucket's JSON file is damaged)`);
      return dataset;
    } catch {
      // An intact file its engine cannot open was never a good release: try the next format.
    }
  }
  say(unreadablePrevious(`${bucket.description}${releaseFileKey(manifest.version, 'json')}`, new Error('no intact copy of it is at hand')));
  return null;
}

/**
 * The tariff codes of the bucket's current release: the codes a barcode may be matched to. A
 * bucket with no current release, or whose current rows no intact copy holds, fails naming the bucket.
 */
export async function publishedTariffCodes(bucket: Bucket): Promise<ReadonlySet<number>> {
  const manifest = await readCurrentManifest(bucket);
  if (!manifest) throw errors.noCurrentRelease(bucket.description);
  let problem = '';
  const rows = await readPublishedRows(bucket, manifest, (line) => (problem = line));
  if (!rows) throw errors.bucketFailed(bucket.description, problem);
  return new Set(rows.products.map((product) => product.admCode));
}

/** What an unreadable previous release costs, in one line for the operator. */
export function unreadablePrevious(where: string, error: unknown): string {
  return `cannot read the previous release's rows in ${where} (${(error as Error).message}): the new release carries no changes, and only the total product count guards against shrinking`;
}
