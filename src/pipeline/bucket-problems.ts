import { isTariffError } from '../errors.ts';
import { importKeys, readHistoryManifest, readHistoryParts } from '../history/history-store.ts';
import { releaseManifestKey } from '../publish/bucket-layout.ts';
import { readReleaseManifest } from '../publish/bucket-releases.ts';
import { readKeyList } from '../publish/current-signing.ts';
import { FORMATS, sameDigest, type Manifest } from '../release/manifest.ts';
import type { Bucket } from '../storage/bucket.ts';

/** A failure as one line of `verify --bucket`: a named error's message, anything else with its key. */
const asProblem = (where: string, error: unknown) => (isTariffError(error) ? error.message : `${where}: ${(error as Error).message}`);

/**
 * What `tariff verify --bucket` says of the objects every reader trips on, besides the current
 * release's files: the current release's own manifest there and naming the same files, the price
 * history whole against its manifest with every import record it names, and the key list readable.
 */
export async function bucketStateProblems(bucket: Bucket, current: Manifest): Promise<string[]> {
  const problems: string[] = [];
  const own = await readReleaseManifest(bucket, current.version).catch((error: unknown) => {
    problems.push(asProblem(`${bucket.description}${releaseManifestKey(current.version)}`, error));
    return undefined;
  });
  if (own === null)
    problems.push(
      `${bucket.description}${releaseManifestKey(current.version)} is missing: current.json names a release the bucket does not keep`,
    );
  else if (own && !FORMATS.every((format) => sameDigest(own.files[format], current.files[format])))
    problems.push(`${bucket.description}${releaseManifestKey(current.version)} names other files than current.json`);
  try {
    const manifest = await readHistoryManifest(bucket);
    // Their digests, not their rows: a file that is what its manifest names was written whole by a writer.
    await readHistoryParts(bucket, manifest);
    for (const key of await importKeys(bucket, manifest))
      if (!(await bucket.get(key))) problems.push(`${bucket.description}${key} is missing: the price history names this import record`);
  } catch (error) {
    problems.push(asProblem(`${bucket.description}history/`, error));
  }
  await readKeyList(bucket).catch((error: unknown) => problems.push(asProblem(`${bucket.description}keys.json`, error)));
  return problems;
}
