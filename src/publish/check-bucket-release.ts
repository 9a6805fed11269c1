import { createHash } from 'node:crypto';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileName, FORMATS, MANIFEST_FILE, renderManifest, sameDigest, type Format, type Manifest } from '../release/manifest.ts';
import { verifyRelease, type VerifyReport } from '../release/verify-release.ts';
import type { Bucket } from '../storage/bucket.ts';
import { releaseFileKey } from './bucket-layout.ts';
import { makeScratchFolder } from '../util/scratch-folder.ts';

/** One file of a release that the bucket does not hold as its manifest says. */
export interface FileDamage {
  format: Format;
  key: string;
  /** "<key> is missing", "<key> holds … the manifest says …". */
  problem: string;
}

/**
 * What is wrong with the files the bucket holds for `manifest`: each read as a stream, its size
 * and SHA-256 compared with the manifest's. An empty list: the release is whole.
 */
export async function bucketFileDamage(bucket: Bucket, manifest: Manifest): Promise<FileDamage[]> {
  const damage: FileDamage[] = [];
  for (const format of FORMATS) {
    const key = releaseFileKey(manifest.version, format);
    const expected = manifest.files[format];
    const object = await bucket.open(key);
    if (!object) {
      damage.push({ format, key, problem: `${key} is missing` });
      continue;
    }
    const hash = createHash('sha256');
    let size = 0;
    for await (const chunk of object.body) {
      hash.update(chunk as Buffer);
      size += (chunk as Buffer).length;
    }
    const sha256 = hash.digest('hex');
    if (!sameDigest({ sha256, size }, expected)) {
      const problem = `${key} holds ${size} bytes with SHA-256 ${sha256}, the manifest says ${expected.size} bytes with ${expected.sha256}`;
      damage.push({ format, key, problem });
    }
  }
  return damage;
}

/** The same, as one line per damaged file. */
export async function bucketFileProblems(bucket: Bucket, manifest: Manifest): Promise<string[]> {
  return (await bucketFileDamage(bucket, manifest)).map((damage) => damage.problem);
}

/**
 * The full check of a release as the bucket holds it: the files are fetched into a private
 * temporary folder with the manifest and checked as `tariff verify` checks a folder (size,
 * SHA-256, each format opened by its engine, counts, the same rows in the three).
 */
export async function verifyBucketRelease(bucket: Bucket, manifest: Manifest): Promise<VerifyReport> {
  const scratch = await makeScratchFolder('tariff-verify-bucket-');
  try {
    const missing: string[] = [];
    await writeFile(join(scratch, MANIFEST_FILE), renderManifest(manifest));
    for (const format of FORMATS) {
      const bytes = await bucket.get(releaseFileKey(manifest.version, format));
      if (bytes) await writeFile(join(scratch, fileName(format)), bytes);
      else missing.push(`${releaseFileKey(manifest.version, format)} is missing`);
    }
    const report = await verifyRelease(scratch);
    const problems = report.problems.map((problem) => `${bucket.description}releases/${manifest.version}/${problem}`);
    return { ...report, ok: report.ok && missing.length === 0, problems: [...missing, ...problems] };
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
